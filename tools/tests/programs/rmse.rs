//! rmse: equal images give 0 for both the RMSE and the largest difference, and a
//! one-channel change shows in both, exactly.

use std::process::Command;

fn rmse(args: &[&std::path::Path]) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_rmse")).args(args).output().expect("rmse runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn equal_images_have_no_difference_and_one_changed_channel_shows() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("a.png");
    let same = dir.path().join("b.png");
    let changed = dir.path().join("c.png");
    let mut image = image::RgbImage::from_pixel(4, 4, image::Rgb([10, 20, 30]));
    image.save(&reference).unwrap();
    image.save(&same).unwrap();
    // One channel of 48 off by 51/255 = 0.2: RMSE 0.2 / sqrt(48).
    image.put_pixel(1, 2, image::Rgb([61, 20, 30]));
    image.save(&changed).unwrap();
    let out = rmse(&[&reference, &same, &changed]);
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(&lines[0][1..], ["0.000000", "0e0"], "{out}");
    let rmse: f64 = lines[1][1].parse().unwrap();
    let max: f32 = lines[1][2].parse().unwrap();
    assert!((rmse - 0.2 / 48f64.sqrt()).abs() < 1e-6, "{out}");
    assert!((max - 0.2).abs() < 1e-6, "{out}");
}

#[test]
fn images_of_different_sizes_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.png");
    let b = dir.path().join("b.png");
    image::RgbImage::new(4, 4).save(&a).unwrap();
    image::RgbImage::new(4, 3).save(&b).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_rmse")).arg(&a).arg(&b).output().expect("rmse runs");
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("b.png is (4, 3)"));
}
