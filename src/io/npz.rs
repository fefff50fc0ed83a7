//! `.npz` and `.npy` files on disk: reading inputs, writing outputs.
//!
//! An `.npz` file is a zip archive of `.npy` files; `numpy.savez(path, *args)` names them
//! `arr_0.npy`, `arr_1.npy`, ... and `numpy.load` strips the `.npy` suffix. Entries are
//! returned in archive order, which is the order numpy wrote them. Written archives store
//! entries uncompressed with a fixed timestamp, so the same result gives the same bytes.
//! Compressed archives (`numpy.savez_compressed`) are not read: xlac is built without a
//! deflate decoder.

use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::{IoError, npy};
use crate::ir::ArrayLiteral;

/// The first bytes of a zip archive (a local file header).
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// An array read from a file, with where it came from (for error messages).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedArray {
    /// The entry name without `.npy` (`arr_0`), or the file name for a `.npy` file.
    pub name: String,
    /// The file it was read from, as the user spelled it.
    pub file: String,
    /// The value, row-major.
    pub literal: ArrayLiteral,
}

impl NamedArray {
    /// `arr_1 in inputs.npz`, or `x.npy` for a single-array file.
    pub fn describe(&self) -> String {
        if self.name == self.file {
            self.file.clone()
        } else {
            format!("{} in {}", self.name, self.file)
        }
    }
}

/// Reads an `.npz` (all its arrays, in order) or a `.npy` (one array), told apart by content.
/// An archive is read entry by entry from the file, never whole: a model's parameters
/// are then in memory once (as the arrays), not also as the archive's bytes.
pub fn read_arrays(path: &Path) -> Result<Vec<NamedArray>, IoError> {
    let mut file = open_file(path)?;
    let mut magic = Vec::with_capacity(4);
    (&mut file)
        .take(4)
        .read_to_end(&mut magic)
        .and_then(|_| file.seek(SeekFrom::Start(0)))
        .map_err(|e| cannot_read(path, &e))?;
    if magic.starts_with(ZIP_MAGIC) || magic.starts_with(b"PK\x05\x06") {
        return read_npz_from(path, BufReader::new(file));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| cannot_read(path, &e))?;
    read_arrays_bytes(&path.display().to_string(), &bytes)
}

/// [`read_arrays`] on bytes already in memory; `file` names them in messages.
pub fn read_arrays_bytes(file: &str, bytes: &[u8]) -> Result<Vec<NamedArray>, IoError> {
    let path = Path::new(file);
    if bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(b"PK\x05\x06") {
        read_npz_bytes(path, bytes)
    } else if bytes.starts_with(npy::MAGIC) {
        let file = file.to_string();
        let literal =
            npy::read_npy_bytes(bytes).map_err(|m| IoError::new(format!("{file}: {m}")))?;
        Ok(vec![NamedArray {
            name: file.clone(),
            file,
            literal,
        }])
    } else {
        Err(IoError::new(format!("{file}: not a .npy or .npz file")))
    }
}

/// Reads every array of an `.npz` file, in archive order.
pub fn read_npz(path: &Path) -> Result<Vec<NamedArray>, IoError> {
    read_npz_from(path, BufReader::new(open_file(path)?))
}

fn read_npz_bytes(path: &Path, bytes: &[u8]) -> Result<Vec<NamedArray>, IoError> {
    read_npz_from(path, Cursor::new(bytes))
}

/// The arrays of the archive `reader` reads, entry by entry.
fn read_npz_from<R: Read + Seek>(path: &Path, reader: R) -> Result<Vec<NamedArray>, IoError> {
    let file = path.display().to_string();
    let err = |m: String| IoError::new(format!("{file}: {m}"));
    let mut zip =
        ZipArchive::new(reader).map_err(|e| err(format!("not a valid .npz file: {e}")))?;
    let mut out = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        // Look at the compression method before asking zip to decode the entry.
        let (raw_name, method) = {
            let entry = zip.by_index_raw(i).map_err(|e| err(e.to_string()))?;
            (entry.name().to_string(), entry.compression())
        };
        let name = raw_name
            .strip_suffix(".npy")
            .unwrap_or(&raw_name)
            .to_string();
        if method != CompressionMethod::Stored {
            return Err(err(format!(
                "{name} is compressed ({method}); xlac reads only uncompressed .npz files, \
                 write them with numpy.savez rather than numpy.savez_compressed"
            )));
        }
        let entry = zip.by_index(i).map_err(|e| err(e.to_string()))?;
        let size = entry.size();
        let literal = npy::read_npy(entry, size).map_err(|m| err(format!("{name}: {m}")))?;
        out.push(NamedArray {
            name,
            file: file.clone(),
            literal,
        });
    }
    Ok(out)
}

/// Writes arrays as `arr_0`, `arr_1`, ... the way `numpy.savez(path, *arrays)` does.
/// `bf16` arrays are written as `float32`, `f16` as `float16`.
pub fn write_npz(path: &Path, arrays: &[&ArrayLiteral]) -> Result<(), IoError> {
    let file = path.display().to_string();
    let err = |m: String| IoError::new(format!("cannot write {file}: {m}"));
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for (i, array) in arrays.iter().enumerate() {
        let bytes = npy::write_npy_bytes(array).map_err(|m| err(format!("arr_{i}: {m}")))?;
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(format!("arr_{i}.npy"), options)
            .map_err(|e| err(e.to_string()))?;
        zip.write_all(&bytes).map_err(|e| err(e.to_string()))?;
    }
    let bytes = zip.finish().map_err(|e| err(e.to_string()))?.into_inner();
    std::fs::write(path, bytes).map_err(|e| err(super::io_error_text(&e)))
}

fn open_file(path: &Path) -> Result<File, IoError> {
    File::open(path).map_err(|e| cannot_read(path, &e))
}

fn cannot_read(path: &Path, e: &std::io::Error) -> IoError {
    IoError::new(format!(
        "cannot read {}: {}",
        path.display(),
        super::io_error_text(e)
    ))
}

#[cfg(test)]
mod tests {
    use half::f16;
    use num_complex::Complex;

    use super::*;
    use crate::ir::PrimitiveType;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("xlac-npz-test-{}-{name}", std::process::id()))
    }

    /// `tests/fixtures/make_fixtures.py` wrote `mixed.npz`; the values below are the ones
    /// spelled out in that script.
    #[test]
    fn reads_numpy_npz() {
        let arrays = read_npz(&fixture("mixed.npz")).unwrap();
        let names: Vec<&str> = arrays.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "arr_0", "arr_1", "arr_2", "arr_3", "arr_4", "arr_5", "arr_6", "arr_7"
            ]
        );
        let a = &arrays[0].literal;
        assert_eq!(
            (a.element_type(), a.shape.dims.clone()),
            (PrimitiveType::F32, vec![2, 3])
        );
        assert_eq!(a.values::<f32>().unwrap(), &[0.5, 1.5, 2.5, 3.5, 4.5, 5.5]);
        assert_eq!(
            arrays[1].literal.values::<i32>().unwrap(),
            &[-1, 0, 7, 2147483647]
        );
        let b = &arrays[2].literal;
        assert_eq!(
            (b.shape.dims.len(), b.values::<bool>().unwrap()),
            (0, &[true][..])
        );
        let h: Vec<f16> = [1.0f32, -0.5, 65504.0]
            .iter()
            .map(|&x| f16::from_f32(x))
            .collect();
        assert_eq!(arrays[3].literal.values::<f16>().unwrap(), &h[..]);
        assert_eq!(
            arrays[4].literal.values::<Complex<f32>>().unwrap(),
            &[Complex::new(1.0, 2.0), Complex::new(-3.0, 0.25)]
        );
        // np.asfortranarray(np.arange(6.0).reshape(2, 3)): stored column-major, read row-major.
        assert_eq!(
            arrays[5].literal.values::<f64>().unwrap(),
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!(arrays[6].literal.values::<u8>().unwrap(), &[0, 255]);
        assert_eq!(
            arrays[7].literal.values::<i64>().unwrap(),
            &[-9223372036854775808, 5]
        );
    }

    #[test]
    fn keeps_keyword_names_in_file_order() {
        // numpy.savez(path, w=..., b=...): names are the keywords, in the order given.
        let arrays = read_arrays(&fixture("named.npz")).unwrap();
        let names: Vec<&str> = arrays.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["w", "b"]);
        assert_eq!(arrays[1].literal.values::<f32>().unwrap(), &[1.0, 2.0]);
    }

    #[test]
    fn reads_single_npy() {
        let arrays = read_arrays(&fixture("fortran.npy")).unwrap();
        assert_eq!(arrays.len(), 1);
        // np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], np.int16))
        assert_eq!(
            arrays[0].literal.values::<i16>().unwrap(),
            &[1, 2, 3, 4, 5, 6]
        );
        assert_eq!(
            arrays[0].describe(),
            fixture("fortran.npy").display().to_string()
        );
    }

    #[test]
    fn compressed_npz_is_a_clear_error() {
        let e = read_arrays(&fixture("compressed.npz")).unwrap_err();
        assert!(
            e.to_string()
                .contains("numpy.savez rather than numpy.savez_compressed"),
            "{e}"
        );
    }

    #[test]
    fn write_then_read_round_trips() {
        let path = temp_path("round.npz");
        let a = ArrayLiteral::from_vec(&[2, 2], vec![1i64, -2, 3, -4]);
        let b = ArrayLiteral::from_vec(&[3], vec![f16::from_f32(0.5), f16::NEG_INFINITY, f16::NAN]);
        let c = ArrayLiteral::scalar(half::bf16::from_f32(-1.25));
        write_npz(&path, &[&a, &b, &c]).unwrap();
        let back = read_npz(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(back.len(), 3);
        assert_eq!(back[0].name, "arr_0");
        assert_eq!(back[0].literal, a);
        let halves = back[1].literal.values::<f16>().unwrap();
        assert_eq!(
            (halves[0], halves[1]),
            (f16::from_f32(0.5), f16::NEG_INFINITY)
        );
        assert!(halves[2].is_nan());
        assert_eq!(back[2].literal.element_type(), PrimitiveType::F32);
        assert_eq!(back[2].literal.values::<f32>().unwrap(), &[-1.25]);
    }

    #[test]
    fn writes_column_major_literals_row_major() {
        let path = temp_path("colmajor.npz");
        let a = ArrayLiteral::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let col = a.with_layout(&crate::ir::Layout {
            minor_to_major: vec![0, 1],
            extra: None,
        });
        write_npz(&path, &[&col]).unwrap();
        let back = read_npz(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(back[0].literal, a);
    }

    #[test]
    fn missing_and_junk_files() {
        let e = read_arrays(Path::new("/nonexistent/in.npz")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read /nonexistent/in.npz: No such file or directory"
        );
        let path = temp_path("junk.npz");
        std::fs::write(&path, b"PK\x03\x04 this is not really a zip").unwrap();
        let e = read_arrays(&path).unwrap_err();
        std::fs::write(&path, b"hello").unwrap();
        let e2 = read_arrays(&path).unwrap_err();
        std::fs::remove_file(&path).ok();
        assert!(e.to_string().contains("not a valid .npz file"), "{e}");
        assert!(e2.to_string().ends_with("not a .npy or .npz file"), "{e2}");
    }
}
