//! Random tokens from the operating system (getrandom): no generator state kept anywhere.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

fn bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    // the OS source failing is not something a client can work around
    getrandom::fill(&mut out).expect("the operating system's random source failed");
    out
}

/// `n` random bytes as base64url without padding (OAuth `state`, PKCE verifier).
pub(crate) fn token<const N: usize>() -> String {
    URL_SAFE_NO_PAD.encode(bytes::<N>())
}

/// A random (version 4) UUID, the form of the Idempotency-Keys this client generates.
pub(crate) fn uuid_v4() -> String {
    let mut b = bytes::<16>();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuid_v4_has_its_form() {
        let id = super::uuid_v4();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(id, super::uuid_v4());
    }
}
