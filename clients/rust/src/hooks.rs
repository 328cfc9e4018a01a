//! The generated client sends every operation through the hand-written transport: progenitor
//! calls `exec` of this implementation (generated with `HooksMode::Expected`).

use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};

use crate::generated::api::Client;
use crate::generated::metadata::IDEMPOTENT_OPERATION_IDS;
use crate::transport::{Failure, Transport};

impl ClientHooks<Transport> for Client {
    async fn exec(&self, mut request: reqwest::Request, info: &OperationInfo) -> reqwest::Result<reqwest::Response> {
        let transport = self.inner();
        transport.prepare(&mut request, IDEMPOTENT_OPERATION_IDS.contains(&info.operation_id));
        let fallback = request.try_clone();
        match transport.attempts(request).await {
            Ok(response) => Ok(response),
            Err(Failure::Transport(error)) => Err(error),
            // The hook can only answer with reqwest's error: when the OAuth refresh itself failed,
            // the request goes out with the token it has, and the hub's 401 tells the caller.
            Err(Failure::Other(_)) => match fallback {
                Some(request) => self.client().execute(request).await,
                // (a generated operation's body is JSON in memory: it always clones)
                None => Err(self.client().get("").build().expect_err("an empty URL is refused")),
            },
        }
    }
}
