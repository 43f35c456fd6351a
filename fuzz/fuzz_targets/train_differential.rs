#![no_main]
//! Differential training: our `train_dictionary` / `finalize_dictionary` make libzstd
//! 1.5.7's `ZDICT_trainFromBuffer` / `ZDICT_finalizeDictionary` bytes, or both refuse (see
//! `zarkit_tests::exercise::train_input` for the input's layout).

use std::ffi::c_void;

fn oracle(finalize: bool, capacity: usize, level: i32, samples: &[&[u8]]) -> Option<Vec<u8>> {
    let (content, samples) = if finalize {
        let (c, rest) = samples.split_first()?;
        (Some(*c), rest)
    } else {
        (None, samples)
    };
    let flat: Vec<u8> = samples.concat();
    let sizes: Vec<usize> = samples.iter().map(|s| s.len()).collect();
    let mut dict = vec![0u8; capacity];
    // SAFETY: `dict` has `capacity` writable bytes; `flat` holds the samples `sizes` lists;
    // `content` is readable for its length and does not overlap `dict`.
    let n = unsafe {
        match content {
            None => zstd_sys::ZDICT_trainFromBuffer(
                dict.as_mut_ptr() as *mut c_void,
                capacity,
                flat.as_ptr() as *const c_void,
                sizes.as_ptr(),
                sizes.len() as u32,
            ),
            Some(c) => zstd_sys::ZDICT_finalizeDictionary(
                dict.as_mut_ptr() as *mut c_void,
                capacity,
                c.as_ptr() as *const c_void,
                c.len(),
                flat.as_ptr() as *const c_void,
                sizes.as_ptr(),
                sizes.len() as u32,
                zstd_sys::ZDICT_params_t {
                    compressionLevel: level,
                    notificationLevel: 0,
                    dictID: 0,
                },
            ),
        }
    };
    // SAFETY: pure function of its argument.
    if unsafe { zstd_sys::ZDICT_isError(n) } != 0 {
        return None;
    }
    dict.truncate(n);
    Some(dict)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((finalize, capacity, level, samples)) = zarkit_tests::exercise::train_input(data)
    else {
        return;
    };
    // libzstd's trainer reads its samples past the learning part's end when that part
    // holds under 8 bytes (its dmer count wraps); ours refuses: compare only above it.
    if !finalize {
        let n = samples.len();
        let learn: usize = samples[..(n as f64 * 0.75) as usize]
            .iter()
            .map(|s| s.len())
            .sum();
        if learn < 8 {
            let _ = zarkit_tests::exercise::train_ours(finalize, capacity, level, &samples);
            return;
        }
    }
    let ours = zarkit_tests::exercise::train_ours(finalize, capacity, level, &samples).ok();
    let native = oracle(finalize, capacity, level, &samples);
    match (&ours, &native) {
        (Some(a), Some(b)) => assert!(
            a == b,
            "dictionaries differ ({} vs {} bytes)",
            a.len(),
            b.len()
        ),
        (None, None) => {}
        _ => panic!(
            "ours {:?} vs libzstd {:?}",
            ours.as_ref().map(Vec::len),
            native.as_ref().map(Vec::len)
        ),
    }
});
