//! `:page EXPR` and `:next`: a pageable query run page by page in the REPL, each page's continuation token kept for the next.

use super::Repl;

impl Repl {
    /// `:page EXPR`: the expression, checked as a query, run as its first
    /// page (E0532 when it is not pageable).
    pub(super) fn first_page(&mut self, expression: &str) -> String {
        if expression.is_empty() {
            return "usage: :page EXPR, e.g. `:page Post.by_time |> take(10)`".into();
        }
        let entry = match self.compile(expression) {
            Ok((_, true)) => {
                self.failed.set(true);
                return "a mutation has no pages; page a query".into();
            }
            Ok((entry, false)) => entry,
            Err(shown) => return shown,
        };
        self.paging = None;
        let page = self.db.run_page_entry(&entry, &[]);
        self.show(entry, page)
    }

    /// `:next`: the page after the last one `:page` or `:next` printed.
    pub(super) fn next_page(&mut self) -> String {
        let Some((entry, token)) = self.paging.take() else {
            self.failed.set(true);
            return "no query is being paged: start one with `:page EXPR`".into();
        };
        let Some(token) = token else {
            return "that was the last page".into();
        };
        let page = self.db.next_page_entry(&entry, &token);
        self.show(entry, page)
    }

    fn show(&mut self, entry: rqc_plan::Entry, page: Result<rqc::Page, rqc::Error>) -> String {
        match page {
            Ok(page) => {
                let more = if page.token.is_some() {
                    ":next for the next page"
                } else {
                    "the last page"
                };
                let text = format!(
                    "{}\n{} · {more}",
                    super::table::table(page.output.rows()),
                    crate::commands::report::run_summary(&page.output, false)
                );
                self.paging = Some((entry, page.token));
                text
            }
            Err(error) => self.error_text(&error),
        }
    }
}
