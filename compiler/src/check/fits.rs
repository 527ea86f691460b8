//! Fitting a value into a place costed for other measures: its sizes, ranges and costs proved within the assumed ones (a requirement recorded where the place has one), or E0419.

use super::expr::Checker;
use super::types::{FnCandidate, Ty};
use crate::cost::Interval;
use crate::cost::{Cost, Poly, VarKind};
use crate::span::Span;

/// Why a value does not fit where it flows.
pub struct Misfit {
    pub what: String,
    pub found: String,
    pub assumed: String,
}

impl Checker<'_> {
    /// Proves `found`'s measures within `assumed`'s (a value flowing into a
    /// place costed for `assumed`), recording requirements where `assumed`
    /// has one; E0419 at `span` otherwise. True when it fits.
    pub fn fits(&mut self, found: &Ty, assumed: &Ty, span: Span, place: &str) -> bool {
        let mut misfit = None;
        self.fit(found, assumed, "the value", &mut misfit);
        let Some(misfit) = misfit else {
            return true;
        };
        let d = self.error(
            "E0419",
            format!(
                "{} may be {}, and {place} was costed for {}",
                misfit.what, misfit.found, misfit.assumed
            ),
            span,
            "outside what was assumed",
        );
        d.help.push(
            "pass the lambda directly where it is used, so it is costed for its arguments, or declare the larger size in the function's type".into(),
        );
        false
    }

    fn fit(&mut self, found: &Ty, assumed: &Ty, what: &str, misfit: &mut Option<Misfit>) {
        if misfit.is_some() {
            return;
        }
        match (found, assumed) {
            (Ty::Int(f), Ty::Int(a)) => {
                self.fit_poly(&f.hi, &a.hi, format!("the upper end of {what}"), misfit);
                self.fit_poly(&f.lo, &a.lo, format!("the negative part of {what}"), misfit);
                fit_numeric(f, a, what, misfit);
            }
            (Ty::Str(f), Ty::Str(a)) => {
                self.fit_poly(f, a, format!("the length in bytes of {what}"), misfit)
            }
            (Ty::Option(f), Ty::Option(a)) => self.fit(f, a, what, misfit),
            (f, Ty::Option(a)) => self.fit(f, a, what, misfit),
            (Ty::List(fe, fs, _), Ty::List(ae, size, assumed_extremes)) => {
                self.fit_poly(fs, size, format!("the length of {what}"), misfit);
                self.fit(fe, ae, &format!("an element of {what}"), misfit);
                // A place costed for a least (or greatest) element tighter
                // than the elements' range must be given one within it.
                if let (Some(a), Some(f)) = (assumed_extremes, found.extremes()) {
                    let least = format!("the least element of {what}");
                    self.fit(&Ty::Int(f.least), &Ty::Int(a.least.clone()), &least, misfit);
                    let greatest = format!("the greatest element of {what}");
                    self.fit(
                        &Ty::Int(f.greatest),
                        &Ty::Int(a.greatest.clone()),
                        &greatest,
                        misfit,
                    );
                }
            }
            (Ty::Record(f), Ty::Record(a)) => {
                for (name, at) in a {
                    if let Some((_, ft)) = f.iter().find(|(n, _)| n == name) {
                        self.fit(ft, at, &format!("field `{name}`"), misfit);
                    }
                }
            }
            (Ty::Stream(f), Ty::Stream(a)) => {
                let (open, each) = (format!("opening {what}"), format!("each element of {what}"));
                self.fit_cost(&f.open, &a.open, &open, misfit);
                self.fit_cost(&f.per_element, &a.per_element, &each, misfit);
                self.fit(&f.elem, &a.elem, &format!("an element of {what}"), misfit);
            }
            (Ty::Fn(f), Ty::Fn(a)) => {
                // What the place will pass must fit what the function was
                // costed for; what it gives back and costs must fit the place.
                for (fp, ap) in f.params.iter().zip(&a.params) {
                    self.fit(ap, fp, "an argument", misfit);
                }
                let result = match what {
                    "the value" => "the function's result".to_string(),
                    _ => format!("the result of {what}"),
                };
                self.fit(&f.ret, &a.ret, &result, misfit);
                let call = format!("a call of {what}");
                self.fit_cost(&f.latent, &a.latent, &call, misfit);
            }
            // A place costed for functions not applied yet (a `T` bound to
            // a lambda whose parameter types nothing fixes): it holds one of
            // them, each costed where it is applied; any other function
            // there (a wrapper `f` made of it, `f: T -> T`) was never
            // costed, so it does not fit (it once printed 2 seeks for 4).
            (Ty::Fns(found), Ty::Fns(place))
                if misfit.is_none() && found.iter().any(|c| !place.contains(c)) =>
            {
                *misfit = Some(Misfit {
                    what: what.to_string(),
                    found: "a function made here".into(),
                    assumed: "the function it was given, applied where it is used".into(),
                });
            }
            (Ty::Fns(candidates), Ty::Fn(a)) => {
                for candidate in candidates {
                    match candidate {
                        FnCandidate::Known(f) => {
                            self.fit(&Ty::Fn(Box::new(f.clone())), assumed, what, misfit)
                        }
                        // A lambda not applied yet, flowing where a function
                        // was assumed (`f: T -> T`'s result where `T` is a
                        // function): what it gives and costs at the assumed
                        // parameters must fit too (it once passed unchecked,
                        // and a bound of 6 was printed for 7).
                        FnCandidate::Lambda(lambda) => {
                            let (ret, latent) = self.apply_delayed(lambda, &a.params, &[]);
                            let result = format!("the result of {what}");
                            self.fit(&ret, &a.ret, &result, misfit);
                            self.fit_cost(&latent, &a.latent, &format!("a call of {what}"), misfit);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Each measure of `found` within `assumed`'s (see [`Checker::fit_poly`]).
    fn fit_cost(&mut self, found: &Cost, assumed: &Cost, what: &str, misfit: &mut Option<Misfit>) {
        for ((_, f), (_, a)) in found.measures().into_iter().zip(assumed.measures()) {
            self.fit_poly(f, a, what.to_string(), misfit);
        }
    }

    /// `found ≤ assumed`, or a requirement on `assumed` recorded (a
    /// callee's measure not bound yet is bound to `found` by the caller).
    fn fit_poly(
        &mut self,
        found: &Poly,
        assumed: &Poly,
        what: String,
        misfit: &mut Option<Misfit>,
    ) {
        match assumed.as_var().map(|var| (var, var.kind())) {
            // Not from a lambda's check before any application, whose
            // parameters are of no known type: what it found holds
            // measures nothing binds there (the `y` of `fn outer(g: Int
            // -> Int, y: Int)` called as `z => outer(h, z)`), which would
            // leave `h` required to take values with no end. Each
            // application records what it requires.
            Some((_, VarKind::Req(_))) if self.lambda_checks.unknown_parameters > 0 => {}
            Some((var, VarKind::Req(_))) => self.requirements.record(&var, found),
            // A callee's measure admits any value (it is costed for every
            // one); this definition's own, which a type parameter bound to
            // its parameter carries (`fn h(x: Int) = gtwice(n => n * 2,
            // x)`: `T` is at most `x`), is one value its callers fix, and
            // `2·x` is not within it (adversary finding: the call was
            // printed `x` where it is `4·x`).
            Some((var, VarKind::Generic(_))) if !self.def_measures.contains(&var) => {}
            // Costed for any value: a measure nothing bounds (a declared
            // `Int -> Int`'s parameter) is a variable no conclusion drawn
            // from it limits, so what was proved holds for every value;
            // as is a returned function's own (`returned.rs`), but for the
            // one whose body is being checked (`x` in `x => … gtwice(n => n
            // * 2, x)`: one value, the argument).
            Some((_, VarKind::Param { max: None, .. })) => {}
            // One whose declaration bounds it (`-> [Int; <= 10] -> Int`)
            // admits any value within that bound.
            Some((
                var,
                VarKind::Own {
                    most: Some(most), ..
                },
            )) if !self.def_measures.contains(&var) => {
                let bound = Poly::constant(*most);
                if !found.le(&bound) && misfit.is_none() {
                    *misfit = Some(Misfit {
                        what,
                        found: shown(found),
                        assumed: format!("at most {most}"),
                    });
                }
            }
            Some((var, VarKind::Own { .. })) if !self.def_measures.contains(&var) => {}
            // So is a sum holding one (`2 + a` for an `a` nothing bounds):
            // with non-negative coefficients it is at least any value.
            _ if assumed.any_var(|v| matches!(v.kind(), VarKind::Param { max: None, .. })) => {}
            _ if !found.le(assumed) && misfit.is_none() => {
                *misfit = Some(Misfit {
                    what,
                    found: shown(found),
                    assumed: format!("at most {}", shown(assumed)),
                });
            }
            _ => {}
        }
    }
}

/// `found`'s numeric ends within `assumed`'s: a place costed for values
/// of at least 5 (a lambda checked with `x` bound to `5`) may not be
/// given 0, which its polynomial ends (never above zero at the bottom)
/// cannot tell apart.
fn fit_numeric(found: &Interval, assumed: &Interval, what: &str, misfit: &mut Option<Misfit>) {
    if misfit.is_some() {
        return;
    }
    let shown =
        |end: Option<i64>, infinite: &str| end.map_or(infinite.to_string(), |n| n.to_string());
    *misfit = match assumed.passed_ends(found) {
        (Some(least), _) => Some(Misfit {
            what: format!("the lower end of {what}"),
            found: shown(found.least, "any negative number"),
            assumed: format!("at least {least}"),
        }),
        (None, Some(most)) => Some(Misfit {
            what: format!("the upper end of {what}"),
            found: shown(found.most, "any size"),
            assumed: format!("at most {most}"),
        }),
        (None, None) => None,
    };
}

fn shown(poly: &Poly) -> String {
    match poly.max_value() {
        Some(max) => max.to_string(),
        None => format!("`{poly}`"),
    }
}
