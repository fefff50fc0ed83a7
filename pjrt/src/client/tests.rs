use super::*;

fn s(name: &str, v: &str) -> (String, OptionValue) {
    (name.into(), OptionValue::Str(v.into()))
}

#[test]
fn options_parse_from_strings_and_ints() {
    let o = ClientOptions::parse(&[
        s("dump_to", "/tmp/d"),
        s("mode", "interpreter"),
        ("threads".into(), OptionValue::Int(3)),
        ("log_calls".into(), OptionValue::Bool(false)),
        s("collectives_timeout", "2.5"),
    ])
    .unwrap();
    assert_eq!(o.collectives_timeout, Duration::from_millis(2500));
    assert_eq!(
        ClientOptions::default().collectives_timeout,
        Duration::from_secs(60)
    );
    assert_eq!(o.dump_to, Some(PathBuf::from("/tmp/d")));
    assert_eq!(o.mode, Mode::Interpreter);
    assert_eq!(o.threads, Some(3));
    assert_eq!(o.log_calls.as_deref(), Some("0"));
}

#[test]
fn bad_options_are_errors_naming_them() {
    for (bad, word) in [
        (s("mode", "fast"), "mode:fast"),
        (s("threads", "0"), "threads:0"),
        (s("threads", "x"), "threads:x"),
        (s("dumpto", "d"), "dumpto"),
        (s("devices", "0"), "devices=0"),
        (s("devices", "100000"), "devices=100000"),
        (s("collectives_timeout", "0"), "collectives_timeout=0"),
        (s("collectives_timeout", "-3"), "collectives_timeout=-3"),
        (s("collectives_timeout", "soon"), "collectives_timeout=soon"),
        (s("collectives_timeout", "NaN"), "collectives_timeout=NaN"),
        (s("collectives_timeout", "1e9"), "collectives_timeout=1e9"),
    ] {
        let e = ClientOptions::parse(&[bad]).unwrap_err();
        assert!(e.message.contains(word), "{}", e.message);
    }
}

#[test]
fn devices_have_their_own_ids_and_memories() {
    let c = Client::create(ClientOptions::parse(&[s("devices", "4")]).unwrap()).unwrap();
    assert_eq!(c.device_count(), 4);
    for d in 0..4 {
        let device = unsafe { device_ref(c.device_ptr(d)) }.unwrap();
        assert_eq!(device.description.id, d);
        assert_eq!(device.description.to_string, format!("XlacDevice(id={d})"));
        assert_eq!(device.memories[0], c.memory_ptr(d));
        let memory = unsafe { memory_ref(c.memory_ptr(d)) }.unwrap();
        assert_eq!((memory.id, memory.devices[0]), (d, c.device_ptr(d)));
        assert_eq!(check_device(&c, c.device_ptr(d)).unwrap(), Some(d));
        assert_eq!(check_memory(&c, c.memory_ptr(d)).unwrap(), Some(d));
    }
    let other = Client::create(ClientOptions::default()).unwrap();
    assert!(check_device(&c, other.device_ptr(0)).is_err());
    assert_eq!(check_device(&c, std::ptr::null_mut()).unwrap(), None);
}
