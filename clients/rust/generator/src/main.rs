//! `gaming-hub-client-generator <document.json> <out.rs>`: the progenitor half of the Rust client.
//! The document is the 3.0 conversion written by scripts/clients/rust.ts (progenitor reads
//! OpenAPI 3.0 through the `openapiv3` crate); the output is pretty-printed by prettyplease, so
//! it is the same on every machine whatever rustfmt is installed.

use std::{env, fs, process::ExitCode};

use progenitor_impl::{GenerationSettings, Generator, HooksMode, InterfaceStyle, TagStyle};
use quote::quote;

fn generate(input: &str) -> Result<String, Box<dyn std::error::Error>> {
    let spec: openapiv3::OpenAPI = serde_json::from_str(&fs::read_to_string(input)?)?;
    let mut settings = GenerationSettings::default();
    settings
        // `hub.api().get_user(42)`: positional (builder style doubles the code with a builder per type, and CI compiles it cold)
        .with_interface(InterfaceStyle::Positional)
        .with_tag(TagStyle::Merged)
        // every call goes through the hand-written transport (credentials, retries, rate limit):
        // src/hooks.rs implements `ClientHooks` for the generated client
        .with_hooks(HooksMode::Expected)
        .with_inner_type(quote!(crate::transport::Transport));
    let tokens = Generator::new(&settings).generate_tokens(&spec)?;
    let file: syn::File = syn::parse2(tokens)?;
    Ok(prettyplease::unparse(&file))
}

fn main() -> ExitCode {
    let args: Vec<String> = env::args().collect();
    let [_, input, output] = args.as_slice() else {
        eprintln!("usage: gaming-hub-client-generator <document.json> <out.rs>");
        return ExitCode::from(2);
    };
    match generate(input).and_then(|code| Ok(fs::write(output, code)?)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gaming-hub-client-generator: {error}");
            ExitCode::FAILURE
        }
    }
}
