//! Edits of a program outside its operators: the schema (tables, columns, defaults, references, keys, indexes, bounds, small tables, aggregates duplicated, dropped, out of range, of the wrong type), each entry point's parameters and claimed bound, and the claims set to exactly what the verifier recomputes (sound) or one below.

use rqc_plan::schema::BoundSchema;
use rqc_plan::{
    AggregateKind, Bound, ColumnType, CompiledProgram, EntryKind, IndexSchema, Literal, ParamType,
    Schema,
};
use std::sync::Arc;

/// An edited program: what was edited, and whether the verifier must
/// accept it.
pub struct Mutant {
    pub what: String,
    pub program: CompiledProgram,
    pub sound: bool,
}

/// Every schema edit of `program`.
pub fn schema_edits(program: &CompiledProgram) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut edit = |what: String, sound: bool, change: &dyn Fn(&mut Schema)| {
        let mut program = program.clone();
        change(&mut program.schema);
        program.schema.lookups = Default::default();
        for table in &mut program.schema.tables {
            table.lookups = Default::default();
        }
        out.push(Mutant {
            what,
            program,
            sound,
        });
    };
    for t in 0..program.schema.tables.len() {
        let table = program.schema.tables[t].clone();
        let name = table.name.clone();
        edit(format!("{name}: table twice"), false, &|s| {
            s.tables.push(s.tables[t].clone())
        });
        edit(format!("{name}: renamed with NUL"), false, &|s| {
            s.tables[t].name.push('\0')
        });
        edit(format!("{name}: renamed `a:b`"), false, &|s| {
            s.tables[t].name = "a:b".into()
        });
        edit(format!("{name}: key emptied"), false, &|s| {
            s.tables[t].key.clear()
        });
        edit(format!("{name}: key out of range"), false, &|s| {
            s.tables[t].key = vec![99]
        });
        edit(format!("{name}: key twice"), false, &|s| {
            s.tables[t].key = vec![0, 0]
        });
        edit(format!("{name}: key moved"), false, &|s| {
            s.tables[t].key = vec![1]
        });
        edit(format!("{name}: small max 0"), false, &|s| {
            s.tables[t].small_max = Some(0)
        });
        edit(format!("{name}: small max huge"), false, &|s| {
            s.tables[t].small_max = Some(u64::MAX)
        });
        edit(format!("{name}: small max 1"), false, &|s| {
            s.tables[t].small_max = Some(1)
        });
        edit(format!("{name}: small max gone"), false, &|s| {
            s.tables[t].small_max = None
        });
        for c in 0..table.columns.len() {
            let column = format!("{name}.{}", table.columns[c].name);
            edit(format!("{column}: twice"), false, &|s| {
                let twice = s.tables[t].columns[c].clone();
                s.tables[t].columns.push(twice)
            });
            edit(format!("{column}: dropped"), false, &|s| {
                s.tables[t].columns.remove(c);
            });
            edit(format!("{column}: renamed empty"), false, &|s| {
                s.tables[t].columns[c].name.clear()
            });
            for ty in [
                ColumnType::Int,
                ColumnType::String,
                ColumnType::Float,
                ColumnType::Optional(Box::new(ColumnType::Optional(Box::new(ColumnType::Int)))),
            ] {
                edit(format!("{column}: type {}", ty.name()), false, &|s| {
                    s.tables[t].columns[c].ty = ty.clone()
                });
            }
            for default in [
                Literal::String("many".into()),
                Literal::Int(-1),
                Literal::Float((-0.0f64).to_bits()),
                Literal::Float(f64::NAN.to_bits()),
                Literal::None,
            ] {
                edit(format!("{column}: default {default:?}"), false, &|s| {
                    s.tables[t].columns[c].default = Some(default.clone())
                });
            }
            for target in ["Nope", "User", "Post", "Tag"] {
                edit(format!("{column}: ref {target}"), false, &|s| {
                    s.tables[t].columns[c].references = Some(target.into())
                });
            }
            edit(format!("{column}: ref gone"), false, &|s| {
                s.tables[t].columns[c].references = None
            });
            for max in [0, 1, u64::MAX] {
                edit(format!("{column}: length <= {max}"), false, &|s| {
                    s.tables[t].columns[c].max_len = Some(max)
                });
            }
            edit(format!("{column}: length bound gone"), false, &|s| {
                s.tables[t].columns[c].max_len = None
            });
        }
        // A new column: with a default of its type (the inserts then lack
        // its value), of another type.
        for (what, default, sound) in [
            ("Int = 7", Literal::Int(7), false),
            ("Int = \"x\"", Literal::String("x".into()), false),
        ] {
            edit(format!("{name}: new column {what}"), sound, &|s| {
                s.tables[t].columns.push(rqc_plan::Column {
                    name: "extra".into(),
                    ty: ColumnType::Int,
                    references: None,
                    on_delete: None,
                    default: Some(default.clone()),
                    max_len: None,
                })
            });
        }
        for i in 0..table.indexes.len() {
            let index = format!("{name}.{}", table.indexes[i].name);
            edit(format!("{index}: twice"), false, &|s| {
                let twice = s.tables[t].indexes[i].clone();
                s.tables[t].indexes.push(twice)
            });
            edit(format!("{index}: dropped"), false, &|s| {
                s.tables[t].indexes.remove(i);
            });
            edit(format!("{index}: column out of range"), false, &|s| {
                s.tables[t].indexes[i].columns.push(99)
            });
            edit(format!("{index}: columns emptied"), false, &|s| {
                s.tables[t].indexes[i].columns.clear();
                s.tables[t].indexes[i].descending.clear()
            });
            edit(format!("{index}: a column twice"), false, &|s| {
                let c = s.tables[t].indexes[i].columns[0];
                s.tables[t].indexes[i].columns.push(c);
                s.tables[t].indexes[i].descending.push(false)
            });
            edit(format!("{index}: directions short"), false, &|s| {
                s.tables[t].indexes[i].descending.clear()
            });
            edit(format!("{index}: unique flipped"), false, &|s| {
                s.tables[t].indexes[i].unique ^= true
            });
            edit(format!("{index}: renamed with `:`"), false, &|s| {
                s.tables[t].indexes[i].name = "x:y".into()
            });
        }
        edit(format!("{name}: index named as another"), false, &|s| {
            let first = s.tables[t]
                .indexes
                .first()
                .map(|i| i.name.clone())
                .unwrap_or_default();
            s.tables[t].indexes.push(IndexSchema {
                name: first,
                columns: vec![0],
                descending: vec![false],
                unique: false,
            })
        });
        for b in 0..table.bounds.len() {
            let bound = format!("{name} bound {b}");
            for limit in [0, 1, 2, 1_000, u64::MAX] {
                edit(format!("{bound}: limit {limit}"), false, &|s| {
                    s.tables[t].bounds[b].limit = limit
                });
            }
            edit(format!("{bound}: twice"), false, &|s| {
                let twice = s.tables[t].bounds[b].clone();
                s.tables[t].bounds.push(twice)
            });
            edit(format!("{bound}: dropped"), false, &|s| {
                s.tables[t].bounds.remove(b);
            });
            edit(format!("{bound}: not a prefix"), false, &|s| {
                s.tables[t].bounds[b].columns = vec![3]
            });
            edit(format!("{bound}: out of range"), false, &|s| {
                s.tables[t].bounds[b].columns = vec![99]
            });
        }
        edit(format!("{name}: a new bound over the key"), false, &|s| {
            let key = s.tables[t].key.clone();
            s.tables[t].bounds.push(BoundSchema {
                columns: key,
                limit: 1,
            })
        });
        for a in 0..table.aggregates.len() {
            let aggregate = format!("aggregate {}", table.aggregates[a].name);
            edit(format!("{aggregate}: twice"), false, &|s| {
                let twice = s.tables[t].aggregates[a].clone();
                s.tables[t].aggregates.push(twice)
            });
            edit(format!("{aggregate}: dropped"), false, &|s| {
                s.tables[t].aggregates.remove(a);
            });
            for kind in [
                AggregateKind::Count,
                AggregateKind::Sum,
                AggregateKind::Min,
                AggregateKind::Max,
            ] {
                edit(format!("{aggregate}: kind {}", kind.name()), false, &|s| {
                    s.tables[t].aggregates[a].kind = kind
                });
            }
            for column in [None, Some(0), Some(3), Some(99)] {
                edit(format!("{aggregate}: column {column:?}"), false, &|s| {
                    s.tables[t].aggregates[a].column = column
                });
            }
            edit(format!("{aggregate}: by out of range"), false, &|s| {
                s.tables[t].aggregates[a].by = vec![99]
            });
            edit(format!("{aggregate}: by twice"), false, &|s| {
                s.tables[t].aggregates[a].by = vec![1, 1]
            });
            edit(format!("{aggregate}: by none"), false, &|s| {
                s.tables[t].aggregates[a].by.clear()
            });
            edit(
                format!("{aggregate}: moved to another table"),
                false,
                &|s| {
                    let moved = s.tables[t].aggregates.remove(a);
                    let other = (t + 1) % s.tables.len();
                    s.tables[other].aggregates.push(moved)
                },
            );
        }
    }
    out
}

/// Every edit of the entry points' heads: parameters, claimed bounds,
/// kinds, names; the claims set to what the verifier recomputes (sound)
/// and one below (refused).
pub fn entry_edits(program: &CompiledProgram, recomputed: &[Bound]) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut edit = |what: String, sound: bool, e: usize, change: &dyn Fn(&mut rqc_plan::Entry)| {
        let mut program = program.clone();
        let mut entry = (*program.entries[e]).clone();
        change(&mut entry);
        program.entries[e] = Arc::new(entry);
        out.push(Mutant {
            what,
            program,
            sound,
        });
    };
    for (e, entry) in program.entries.iter().enumerate() {
        let name = entry.name.clone();
        let tight = recomputed[e];
        edit(
            format!("{name}: claims at the recomputed bound"),
            true,
            e,
            &|entry| {
                entry.bound = tight;
                entry.root.bound = Some(tight);
            },
        );
        for measure in 0..3 {
            let mut below = tight;
            let m = crate::reshape::measure_of(&mut below, measure);
            if *m == 0 {
                continue;
            }
            *m -= 1;
            edit(
                format!("{name}: claim {measure} one below the recomputed bound"),
                false,
                e,
                &|entry| {
                    entry.bound = below;
                    entry.root.bound = Some(below);
                },
            );
        }
        edit(format!("{name}: entry claim huge"), false, e, &|entry| {
            entry.bound.rows = u64::MAX
        });
        edit(format!("{name}: entry claim zero"), false, e, &|entry| {
            entry.bound = Bound {
                seeks: 0,
                rows: 0,
                round_trips: 0,
            }
        });
        edit(format!("{name}: kind flipped"), false, e, &|entry| {
            entry.kind = match entry.kind {
                EntryKind::Query => EntryKind::Mutation,
                EntryKind::Mutation => EntryKind::Query,
            }
        });
        edit(format!("{name}: named with NUL"), false, e, &|entry| {
            entry.name.push('\0')
        });
        edit(
            format!("{name}: module with a newline"),
            false,
            e,
            &|entry| entry.module.push('\n'),
        );
        edit(format!("{name}: a parameter more"), false, e, &|entry| {
            let extra = entry.params.first().cloned().map(|mut p| {
                p.name = "extra".into();
                p
            });
            entry.params.extend(extra)
        });
        edit(
            format!("{name}: last parameter dropped"),
            false,
            e,
            &|entry| {
                entry.params.pop();
            },
        );
        for p in 0..entry.params.len() {
            let param = format!("{name}.{}", entry.params[p].name);
            for max in [None, Some(-1), Some(0), Some(1), Some(i64::MAX)] {
                edit(format!("{param}: max {max:?}"), false, e, &|entry| {
                    entry.params[p].max = max
                });
            }
            for min in [
                None,
                Some(i64::MIN),
                Some(-1),
                Some(0),
                Some(1),
                Some(i64::MAX),
            ] {
                edit(format!("{param}: min {min:?}"), false, e, &|entry| {
                    entry.params[p].min = min
                });
            }
            edit(format!("{param}: bounded by itself"), false, e, &|entry| {
                entry.params[p].max_param = Some(p)
            });
            edit(
                format!("{param}: bounded by parameter 99"),
                false,
                e,
                &|entry| entry.params[p].max_param = Some(99),
            );
            for ty in [
                ParamType::Scalar(ColumnType::Int),
                ParamType::Scalar(ColumnType::String),
                ParamType::List(ColumnType::Int),
            ] {
                edit(format!("{param}: type {}", ty.name()), false, e, &|entry| {
                    entry.params[p].ty = ty.clone()
                });
            }
            edit(format!("{param}: named as another"), false, e, &|entry| {
                let other = entry.params[(p + 1) % entry.params.len()].name.clone();
                entry.params[p].name = other
            });
        }
    }
    // Two entry points of one name.
    if let Some(first) = program.entries.first() {
        let mut twice = program.clone();
        twice.entries.push(Arc::clone(first));
        out.push(Mutant {
            what: "an entry point twice".into(),
            program: twice,
            sound: false,
        });
    }
    out
}
