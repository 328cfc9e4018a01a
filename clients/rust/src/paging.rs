//! Every item of a list, page after page, as a `Stream`: limit/offset on the published API,
//! page/per_page with `{data, meta}` on /v1, and the event cursor (`after`).

use std::collections::VecDeque;

use futures_core::Stream;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Error;
use crate::request::RequestBuilder;

/// How a list pages (from the document: its query parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paging {
    /// `limit` / `offset`, the items in the answer's one array
    Offset,
    /// `page` / `per_page`, `{data, meta: {total, per_page}}`
    Page,
    /// `after` / `limit`, `{data, meta: {has_more, next_after}}`
    Cursor,
}

enum Next {
    Offset(u64),
    Page(u64),
    Cursor(Option<String>),
    /// a list answered in one piece (a top-N), or the last page was read
    Once,
    Done,
}

struct State<T> {
    request: RequestBuilder,
    next: Next,
    items: VecDeque<Value>,
    _item: std::marker::PhantomData<fn() -> T>,
}

fn query_number(request: &RequestBuilder, name: &str) -> Option<u64> {
    request
        .query
        .iter()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.parse().ok())
}

/// The single array of a published list answer (`threads`, `posts`…), or `data`.
fn items_of(page: &mut Value) -> Result<Vec<Value>, Error> {
    let not_a_list = || Error::Decode {
        status: 200,
        message: "this answer is not a list".into(),
    };
    let object = page.as_object_mut().ok_or_else(not_a_list)?;
    if let Some(Value::Array(data)) = object.remove("data") {
        return Ok(data);
    }
    let mut arrays = object.values_mut().filter(|v| v.is_array());
    match (arrays.next(), arrays.next()) {
        (Some(array), None) => Ok(std::mem::take(array.as_array_mut().expect("an array"))),
        _ => Err(not_a_list()),
    }
}

impl<T: DeserializeOwned> State<T> {
    /// Fetches the next page into `items`; the position moves past it.
    async fn fetch(&mut self) -> Result<(), Error> {
        if let Some(error) = self.request.error.take() {
            return Err(error);
        }
        let mut request = self.request.try_clone();
        match &self.next {
            Next::Offset(offset) => request.set_query("offset", offset.to_string()),
            Next::Page(page) => request.set_query("page", page.to_string()),
            Next::Cursor(Some(after)) => request.set_query("after", after.clone()),
            Next::Cursor(None) | Next::Once => {}
            Next::Done => return Ok(()),
        }
        let mut answer: Value = request.send().await?;
        let meta = answer.get("meta").cloned().unwrap_or(Value::Null);
        let items = items_of(&mut answer)?;
        let count = items.len() as u64;
        self.next = match &self.next {
            // a short page is the last; an explicit limit tells the page size, else the first page does
            Next::Offset(offset) => {
                let size = query_number(&self.request, "limit");
                if count == 0 || size.is_some_and(|s| count < s) {
                    Next::Done
                } else {
                    if size.is_none() {
                        self.request.set_query("limit", count.to_string());
                    }
                    Next::Offset(offset + count)
                }
            }
            Next::Page(page) => {
                let total = meta.get("total").and_then(Value::as_u64).unwrap_or(0);
                let per_page = meta.get("per_page").and_then(Value::as_u64).unwrap_or(count);
                if count == 0 || page * per_page >= total {
                    Next::Done
                } else {
                    Next::Page(page + 1)
                }
            }
            Next::Cursor(_) => {
                let more = meta.get("has_more").and_then(Value::as_bool).unwrap_or(false);
                match meta.get("next_after").and_then(Value::as_str) {
                    Some(after) if more => Next::Cursor(Some(after.to_owned())),
                    _ => Next::Done,
                }
            }
            Next::Once | Next::Done => Next::Done,
        };
        self.items.extend(items);
        Ok(())
    }

    async fn next_item(&mut self) -> Option<Result<T, Error>> {
        loop {
            if let Some(item) = self.items.pop_front() {
                let decoded = serde_json::from_value(item).map_err(|e| Error::Decode {
                    status: 200,
                    message: format!("a list item: {e}"),
                });
                return Some(decoded);
            }
            if matches!(self.next, Next::Done) {
                return None;
            }
            if let Err(error) = self.fetch().await {
                self.next = Next::Done;
                return Some(Err(error));
            }
        }
    }
}

impl RequestBuilder {
    /// Every item of this list as `T`, fetching pages as the stream is read (stop early by
    /// dropping it). The list's paging comes from the document; a list without paging is read once.
    pub fn paginate<T: DeserializeOwned + Send + 'static>(
        self,
    ) -> impl Stream<Item = Result<T, Error>> + Send + 'static {
        let next = match self.paging() {
            Some(Paging::Offset) => Next::Offset(query_number(&self, "offset").unwrap_or(0)),
            Some(Paging::Page) => Next::Page(query_number(&self, "page").unwrap_or(1)),
            Some(Paging::Cursor) => Next::Cursor(self.query.iter().find(|(k, _)| k == "after").map(|(_, v)| v.clone())),
            None => Next::Once,
        };
        let state = State::<T> {
            request: self,
            next,
            items: VecDeque::new(),
            _item: std::marker::PhantomData,
        };
        // boxed: the stream is Unpin, so `while let Some(x) = items.try_next().await?` just works
        Box::pin(futures_util::stream::unfold(state, |mut state| async move {
            let item = state.next_item().await?;
            Some((item, state))
        }))
    }
}
