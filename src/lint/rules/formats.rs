//! The string formats the API server validates in custom resources (kube-openapi's
//! format registry, as used by the CRD validator). Formats not listed here are not
//! checked, as the API server does not check formats it does not know.

/// Why `text` is not of `format`, or None when it is (or the format is not checked).
pub fn check(format: &str, text: &str) -> Option<&'static str> {
    let ok = match format {
        "byte" => is_base64(text),
        "date" => is_date(text),
        "date-time" => is_date_time(text),
        "uuid" => is_uuid(text),
        "ipv4" => text.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => text.parse::<std::net::Ipv6Addr>().is_ok(),
        "cidr" => is_cidr(text),
        "hostname" => is_hostname(text),
        _ => return None,
    };
    (!ok).then_some(match format {
        "byte" => "not base64",
        "date" => "not a date like 2024-01-31",
        "date-time" => "not an RFC 3339 date-time like 2024-01-31T12:00:00Z",
        "uuid" => "not a UUID",
        "ipv4" | "ipv6" => "not an IP address of that family",
        "cidr" => "not a CIDR like 10.0.0.0/8",
        _ => "not a hostname",
    })
}

fn digits(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 3
        && digits(parts[0], 4)
        && digits(parts[1], 2)
        && digits(parts[2], 2)
        && (1..=12).contains(&parts[1].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&parts[2].parse::<u32>().unwrap_or(0))
}

fn is_date_time(s: &str) -> bool {
    let Some(t) = s.find(['T', 't']) else {
        return false;
    };
    let (date, rest) = (&s[..t], &s[t + 1..]);
    let (time, offset) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => return false,
    };
    let (hms, fraction) = match time.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (time, None),
    };
    let hms: Vec<&str> = hms.split(':').collect();
    let offset_ok = matches!(offset, "Z" | "z") || {
        let o = &offset[1..];
        o.len() == 5 && digits(&o[..2], 2) && &o[2..3] == ":" && digits(&o[3..], 2)
    };
    is_date(date)
        && hms.len() == 3
        && hms.iter().all(|p| digits(p, 2))
        && fraction.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
        && offset_ok
}

fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len().is_multiple_of(4)
        && s.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u8>() else {
        return false;
    };
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(_)) => bits <= 32,
        Ok(std::net::IpAddr::V6(_)) => bits <= 128,
        Err(_) => false,
    }
}

fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn formats_accept_good_and_refuse_bad_values() {
        for (format, good, bad) in [
            (
                "date-time",
                "2024-01-02T03:04:05.5+01:00",
                "2024-01-02 03:04",
            ),
            ("date", "2024-02-29", "2024-13-01"),
            ("byte", "aGVsbG8=", "not base64!"),
            ("uuid", "9d1f2c3e-0000-4000-8000-000000000001", "9d1f"),
            ("ipv4", "10.0.0.1", "10.0.0.256"),
            ("cidr", "10.0.0.0/8", "10.0.0.0/33"),
            ("hostname", "a.example.com", "-a.com"),
        ] {
            assert_eq!(check(format, good), None, "{format} {good}");
            assert!(check(format, bad).is_some(), "{format} {bad}");
        }
        assert_eq!(check("password", "anything"), None);
    }
}
