pub const BACKOFF_SECONDS: u32 = 30;

pub fn backoff_seconds() -> u32 {
    BACKOFF_SECONDS
}

pub fn port() -> u16 {
    crate::net::DEFAULT_PORT
}
