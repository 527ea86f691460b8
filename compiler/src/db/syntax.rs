//! The syntax side of the incremental analysis: each file's pieces (see
//! [`crate::syntax::pieces`]) parsed one by one, where each item comes from
//! (its layout), the file's skeleton for the program's shape, and each
//! definition's own syntax.
//!
//! A piece is a salsa input of its own, so an edit changes one piece's text
//! and, when the edit changes a length, the offsets of the pieces after it:
//! only the touched piece is parsed again, and only the definition in it is
//! checked again (and its callers, when its signature changed).

use super::{program_shape, Db, DefKey, SourceFile, Workspace};
use crate::check::DEF_MARKER;
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{Def, Expr, ExprKind, Ident, Item, Module};
use crate::syntax::{parse, parse_at, parse_at_outcome};
use std::sync::Arc;

/// One top-level piece of a file's text.
#[salsa::input(debug)]
pub struct Piece {
    #[returns(ref)]
    pub text: String,
}

/// A piece parsed alone: spans relative to its start.
#[derive(Clone, Debug, PartialEq)]
pub struct PieceSyntax {
    pub module: Arc<Module>,
    /// Parsed without any diagnostic: then its items are the file's.
    pub clean: bool,
}

impl Eq for PieceSyntax {}

#[salsa::tracked(returns(ref))]
pub fn parse_piece(db: &dyn Db, piece: Piece) -> PieceSyntax {
    let (module, diagnostics) = parse(DEF_MARKER, piece.text(db));
    PieceSyntax {
        module: Arc::new(module),
        clean: diagnostics.is_empty(),
    }
}

/// A clean piece that is not one definition alone, parsed at its place in
/// its file (absolute spans); asked again only when it moves.
#[salsa::tracked(returns(ref))]
fn parse_piece_at(db: &dyn Db, piece: Piece, offset: u32) -> PieceSyntax {
    let (module, diagnostics) = parse_at(DEF_MARKER, piece.text(db), offset as usize);
    PieceSyntax {
        module: Arc::new(module),
        clean: diagnostics.is_empty(),
    }
}

/// The file from the first piece that does not parse alone to its end,
/// parsed in one go at its place, as the whole file's parse reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tail {
    /// The index of its first piece.
    pub first: usize,
    pub module: Arc<Module>,
    /// The parser could not recover: the whole file's parse then gives up
    /// too, and the file has no items at all.
    pub gave_up: bool,
    /// Absolute, in the file.
    pub diagnostics: Vec<Diagnostic>,
}

impl Eq for Tail {}

#[salsa::tracked(returns(ref))]
fn parse_tail(db: &dyn Db, file: SourceFile, first: usize) -> Tail {
    let offset = file.offsets(db)[first] as usize;
    let text = &file.text(db)[offset..];
    let (module, diagnostics, gave_up) = parse_at_outcome(file.name(db), text, offset);
    Tail {
        first,
        module: Arc::new(module),
        gave_up,
        diagnostics,
    }
}

/// Where an item of a file comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemSource {
    /// The only item of piece `index`, a definition: its syntax is the
    /// piece's, so it stays the same while the piece's text does.
    Alone { index: usize, piece: Piece },
    /// Item `item` of the clean piece `index`, which holds other items too.
    InPiece { index: usize, item: usize },
    /// Item `item` of the tail.
    InTail { item: usize },
}

/// A file's items, in order, by where each comes from: equal after an edit
/// that changed no piece's items in number or kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub items: Vec<ItemSource>,
    /// The first piece of the tail, if a piece does not parse alone.
    pub tail: Option<usize>,
}

#[salsa::tracked(returns(ref))]
pub fn layout(db: &dyn Db, file: SourceFile) -> Layout {
    let mut items = Vec::new();
    for (index, piece) in file.pieces(db).iter().enumerate() {
        let syntax = parse_piece(db, *piece);
        // A header after the first piece, or an error: the whole file's
        // parse reads on from here as one.
        if !syntax.clean || (index > 0 && syntax.module.header.is_some()) {
            let tail = parse_tail(db, file, index);
            if tail.gave_up {
                items.clear();
            }
            items.extend((0..tail.module.items.len()).map(|item| ItemSource::InTail { item }));
            return Layout {
                items,
                tail: Some(index),
            };
        }
        match syntax.module.items.as_slice() {
            // Its spans are the piece's, and a definition's are read from
            // its own start: alone only when it starts the piece (an
            // indented one does not start a piece, and shares its piece
            // with what comes before).
            [Item::Def(def)] if def.span.start == 0 => items.push(ItemSource::Alone {
                index,
                piece: *piece,
            }),
            all => items.extend((0..all.len()).map(|item| ItemSource::InPiece { index, item })),
        }
    }
    Layout { items, tail: None }
}

/// What the program's shape reads of a file: its header and items at their
/// places, each definition's header only (see [`header_of`]), and the
/// file's syntax diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    pub module: Arc<Module>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Eq for Skeleton {}

#[salsa::tracked(returns(ref))]
pub fn skeleton(db: &dyn Db, file: SourceFile) -> Skeleton {
    let layout = layout(db, file);
    let pieces = file.pieces(db);
    let offsets = file.offsets(db);
    let tail = layout.tail.map(|first| parse_tail(db, file, first));
    // The tail is the whole file, or the parser gave up (no items at all).
    if let Some(tail) = tail {
        if tail.first == 0 || tail.gave_up {
            return Skeleton {
                module: Arc::new(skeleton_of(&tail.module)),
                diagnostics: tail.diagnostics.clone(),
            };
        }
    }
    let header = parse_piece(db, pieces[0]).module.header.clone();
    let items = layout
        .items
        .iter()
        .map(|source| match *source {
            ItemSource::Alone { index, piece } => match &parse_piece(db, piece).module.items[0] {
                Item::Def(def) => Item::Def(header_of(def, offsets[index])),
                other => unreachable!("a piece alone is a definition: {other:?}"),
            },
            ItemSource::InPiece { index, item } => {
                let at = parse_piece_at(db, pieces[index], offsets[index]);
                place_item(&at.module.items[item])
            }
            ItemSource::InTail { item } => {
                place_item(&tail.expect("an item of the tail has a tail").module.items[item])
            }
        })
        .collect();
    Skeleton {
        module: Arc::new(Module { header, items }),
        diagnostics: tail.map(|t| t.diagnostics.clone()).unwrap_or_default(),
    }
}

/// A module parsed at its place, each definition by its header.
fn skeleton_of(module: &Module) -> Module {
    Module {
        header: module.header.clone(),
        items: module.items.iter().map(place_item).collect(),
    }
}

/// An item at its place (absolute spans), a definition by its header.
fn place_item(item: &Item) -> Item {
    match item {
        Item::Def(def) => Item::Def(header_of(def, 0)),
        other => other.clone(),
    }
}

/// A definition's header, `by` bytes on: its name, kind, visibility and
/// spans. The shape reads nothing else of a definition (the call graph is
/// [`super::call_cycles`], from each definition's own syntax); its
/// parameters, result type and body are left empty here.
fn header_of(def: &Def, by: u32) -> Def {
    let shift = |span: crate::Span| crate::Span {
        start: span.start + by,
        end: span.end + by,
    };
    Def {
        public: def.public,
        kind: def.kind,
        name: Ident {
            name: def.name.name.clone(),
            span: shift(def.name.span),
        },
        generics: Vec::new(),
        params: Vec::new(),
        ret: None,
        body: Expr::new(ExprKind::Error, shift(def.body.span)),
        span: shift(def.span),
    }
}

/// A definition's file and its item's position there.
pub(super) fn locate(
    db: &dyn Db,
    workspace: Workspace,
    key: DefKey<'_>,
) -> Option<(SourceFile, usize)> {
    let shape = program_shape(db, workspace);
    let id = shape.index.find(key.module(db), key.name(db))?;
    let info = &shape.index.defs[id];
    let file = files_by_name(db, workspace).get(&shape.index.modules[info.module].file)?;
    Some((file, info.item))
}

/// The workspace's files by name (the first of a name, as a search of the
/// list finds it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilesByName(std::collections::HashMap<String, SourceFile>);

impl FilesByName {
    pub fn get(&self, name: &str) -> Option<SourceFile> {
        self.0.get(name).copied()
    }
}

/// Each definition finds its file here in one read: a search of the
/// workspace's list read every file's name, and each read is recorded as a
/// dependency, so time and memory grew with definitions × files (5,000
/// one-definition files: 1.3 s and 795 MB).
#[salsa::tracked(returns(ref))]
pub(super) fn files_by_name(db: &dyn Db, workspace: Workspace) -> FilesByName {
    let mut files = std::collections::HashMap::with_capacity(workspace.files(db).len());
    for file in workspace.files(db) {
        files.entry(file.name(db).clone()).or_insert(*file);
    }
    FilesByName(files)
}

/// A definition's file and its text's span there.
pub(super) fn def_place(
    db: &dyn Db,
    workspace: Workspace,
    key: DefKey<'_>,
) -> Option<(SourceFile, crate::Span)> {
    let (file, item) = locate(db, workspace, key)?;
    match skeleton(db, file).module.items.get(item) {
        Some(Item::Def(def)) => Some((file, def.span)),
        _ => None,
    }
}

/// A definition's text, for one that is not a piece alone: equal while the
/// definition is unchanged.
#[salsa::tracked(returns(ref))]
fn def_text(db: &dyn Db, key: DefKey<'_>) -> Option<String> {
    let workspace = Workspace::get(db);
    let (file, span) = def_place(db, workspace, key)?;
    file.text(db).get(span.range()).map(str::to_string)
}

/// Where a definition starts in its file.
pub fn def_offset(db: &dyn Db, workspace: Workspace, key: DefKey<'_>) -> u32 {
    def_place(db, workspace, key)
        .map(|(_, span)| span.start)
        .unwrap_or(0)
}

/// A definition parsed from its own text: spans relative to its start.
#[derive(Clone, Debug, PartialEq)]
pub struct DefSyntax(Option<(Arc<Module>, usize)>);

impl Eq for DefSyntax {}

impl DefSyntax {
    pub fn def(&self) -> Option<&Def> {
        let (module, item) = self.0.as_ref()?;
        match &module.items[*item] {
            Item::Def(def) => Some(def),
            _ => None,
        }
    }
}

/// A definition's syntax: a piece's own when the definition is alone in
/// it (no copy, no parse), else its text parsed alone.
pub fn def_syntax(db: &dyn Db, workspace: Workspace, key: DefKey<'_>) -> DefSyntax {
    let Some((file, item)) = locate(db, workspace, key) else {
        return DefSyntax(None);
    };
    match layout(db, file).items.get(item) {
        Some(ItemSource::Alone { piece, .. }) => {
            DefSyntax(Some((parse_piece(db, *piece).module.clone(), 0)))
        }
        Some(_) => def_text_syntax(db, key).clone(),
        None => DefSyntax(None),
    }
}

/// A definition that is not alone in a piece, parsed from its own text.
#[salsa::tracked(returns(ref))]
fn def_text_syntax(db: &dyn Db, key: DefKey<'_>) -> DefSyntax {
    let Some(text) = def_text(db, key) else {
        return DefSyntax(None);
    };
    let (module, _) = parse(DEF_MARKER, text);
    let item = module.items.iter().position(|i| matches!(i, Item::Def(_)));
    DefSyntax(item.map(|item| (Arc::new(module), item)))
}
