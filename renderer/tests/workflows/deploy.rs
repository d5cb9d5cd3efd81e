//! The render-farm templates in deploy/, run here without a scheduler: their commands
//! are the shared scripts deploy/render-shard.sh and deploy/merge.sh, run with the
//! variables Slurm (a job array) and Kubernetes (an Indexed Job) set, for every shard
//! index, against the built renderer on a small scene; the merged image must be the
//! unsharded render's.
//!
//! Slurm runs through deploy/slurm/submit.sh itself, with stand-ins for `sbatch`
//! (runs the script at once: every array task with its SLURM_ARRAY_* variables, a
//! `--dependency=afterok:<id>` job only if job <id> succeeded) and `srun`. Kubernetes
//! has no stand-in: the Jobs' `command` and `env` are read from the YAML.

use crate::{bin_support, cpu_support};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bin_support::text;
use cpu_support::mixed_scene_dir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// A temp folder with a small scene; the unsharded render of it as `full.png`.
fn setup() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = mixed_scene_dir(24, 16, 20);
    let path = dir.path().join("scene.ron");
    let full = dir.path().join("full.png");
    let out = Command::new(env!("CARGO_BIN_EXE_renderer"))
        .args(["render", "scene.ron", "--backend", "cpu", "-o", "full.png"])
        .current_dir(dir.path())
        .output()
        .expect("run renderer");
    assert_ok(&out, "unsharded render");
    let pixels = rgba8(&full);
    (dir, path, pixels)
}

fn rgba8(path: &Path) -> Vec<u8> {
    image::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).into_rgba8().into_raw()
}

/// `bash -c command` in the repository with exactly `env` (nothing inherited: a CI
/// job inside Slurm must not leak its own SLURM_ARRAY_* into the runs).
fn bash(command: &str, env: &BTreeMap<String, String>) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(repo())
        .env_clear()
        .envs(env)
        .output()
        .expect("run bash")
}

const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
# Stand-in for Slurm's sbatch: runs the job now. Array tasks get SLURM_ARRAY_*; a job
# with --dependency=afterok:<id> runs only if job <id> succeeded.
set -u
dir=$FAKE_SLURM_DIR
echo "sbatch $*" >> "$dir/calls"
array="" dependency=""
while [ $# -gt 1 ]; do
    case $1 in
        --parsable | --export=*) ;;
        --array=*) array=${1#--array=} ;;
        --dependency=*) dependency=${1#--dependency=} ;;
        *) echo "fake sbatch: unexpected $1" >&2; exit 1 ;;
    esac
    shift
done
script=$1
[ -n "$array" ] || array=$(sed -n 's/^#SBATCH --array=//p' "$script")
id=$(cat "$dir/next" 2>/dev/null || echo 1000)
echo $((id + 1)) > "$dir/next"
state=ok
if [ -n "$dependency" ] && [ "$(cat "$dir/${dependency#afterok:}.state")" != ok ]; then
    state=never-ran
elif [ -n "$array" ]; then
    lo=${array%-*} hi=${array#*-}
    for ((i = lo; i <= hi; i++)); do
        SLURM_JOB_ID=$id SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=$lo \
            SLURM_ARRAY_TASK_MAX=$hi SLURM_ARRAY_TASK_COUNT=$((hi - lo + 1)) SLURM_SUBMIT_DIR=$PWD \
            bash "$script" > "$dir/$id-$i.log" 2>&1 || state=failed
    done
else
    SLURM_JOB_ID=$id SLURM_SUBMIT_DIR=$PWD bash "$script" > "$dir/$id.log" 2>&1 || state=failed
fi
echo "$state" > "$dir/$id.state"
echo "$id"
"#;

/// A folder with the `sbatch` and `srun` stand-ins, for the front of PATH.
fn fake_slurm(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::fs::write(bin.join("sbatch"), FAKE_SBATCH).expect("write sbatch");
    std::fs::write(bin.join("srun"), "#!/usr/bin/env bash\nexec \"$@\"\n").expect("write srun");
    let scontrol = "#!/usr/bin/env bash\necho \"scontrol $*\" >> \"$FAKE_SLURM_DIR/calls\"\n";
    std::fs::write(bin.join("scontrol"), scontrol).expect("write scontrol");
    for tool in ["sbatch", "srun", "scontrol"] {
        let status = Command::new("chmod").arg("+x").arg(bin.join(tool)).status().expect("chmod");
        assert!(status.success());
    }
    bin
}

/// The environment every run gets: our renderer, on the CPU.
fn base_env(dir: &Path) -> BTreeMap<String, String> {
    let path = format!("{}:{}", fake_slurm(dir).display(), std::env::var("PATH").unwrap_or_default());
    BTreeMap::from([
        ("PATH".to_owned(), path),
        ("RENDERER".to_owned(), env!("CARGO_BIN_EXE_renderer").to_owned()),
        ("RENDER_ARGS".to_owned(), "--backend cpu".to_owned()),
        ("RTSCENE_DIR".to_owned(), repo().display().to_string()),
        ("FAKE_SLURM_DIR".to_owned(), dir.display().to_string()),
    ])
}

#[test]
fn slurm_array_then_dependent_merge_gives_the_unsharded_image() {
    let render = read("deploy/slurm/render.sbatch");
    let merge = read("deploy/slurm/merge.sbatch");
    let array = render.lines().find_map(|l| l.strip_prefix("#SBATCH --array=")).expect("an --array line");
    let (lo, hi) = array.split_once('-').expect("--array=LO-HI");
    let shards = hi.parse::<u32>().expect("HI") - lo.parse::<u32>().expect("LO") + 1;
    assert_eq!(lo, "0", "shard indices are task ids from 0");
    assert!(render.lines().any(|l| l.starts_with("srun ") && l.contains("deploy/render-shard.sh")));
    assert!(merge.lines().any(|l| l.starts_with("srun ") && l.contains("deploy/merge.sh")));
    let submit = read("deploy/slurm/submit.sh");
    assert!(
        submit.contains(&format!("shards=${{3:-{shards}}}")),
        "submit.sh defaults to the template's {shards}"
    );

    let (dir, scene, full) = setup();
    let dir = dir.path();
    let output = dir.join("out/final.png");
    let env = base_env(dir);
    let command = format!("bash deploy/slurm/submit.sh '{}' '{}'", scene.display(), output.display());
    let out = bash(&command, &env);
    assert_ok(&out, "submit.sh");
    let calls = std::fs::read_to_string(dir.join("calls")).expect("sbatch was called");
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].contains(&format!("--array=0-{}", shards - 1)) && calls[0].ends_with("render.sbatch"));
    assert!(
        calls[1].contains("--dependency=afterok:1000") && calls[1].ends_with("merge.sbatch"),
        "{calls:?}"
    );
    let parts = std::fs::read_dir(dir.join("out/parts"))
        .expect("parts")
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".exr")))
        .count();
    assert_eq!(parts, shards as usize);
    let checkpoints = std::fs::read_dir(dir.join("out/parts/checkpoints")).expect("checkpoints").count();
    assert_eq!(checkpoints, 0, "finished shards leave no checkpoint");
    assert!(rgba8(&output) == full, "the merged image is the unsharded render");

    // A failed shard: the merge never runs.
    let failing = dir.join("fail");
    std::fs::create_dir(&failing).expect("mkdir");
    let mut env = base_env(&failing);
    env.insert("RENDER_ARGS".to_owned(), "--backend cpu --spp 0".to_owned());
    let output = failing.join("final.png");
    let command = format!("bash deploy/slurm/submit.sh '{}' '{}' 3", scene.display(), output.display());
    assert_ok(&bash(&command, &env), "submit.sh (failing shards)");
    assert_eq!(std::fs::read_to_string(failing.join("1000.state")).expect("state").trim(), "failed");
    assert_eq!(std::fs::read_to_string(failing.join("1001.state")).expect("state").trim(), "never-ran");
    assert!(!output.exists());
}

/// One YAML document's `command` (a JSON array) and `env` (name → value), read line by line.
struct Container {
    command: Vec<String>,
    env: BTreeMap<String, String>,
}

fn field<'a>(doc: &'a str, key: &str) -> Option<&'a str> {
    doc.lines().find_map(|l| l.trim().strip_prefix(key)).map(str::trim)
}

fn container(doc: &str) -> Container {
    let command = field(doc, "command:").expect("a command");
    let command: Vec<String> = serde_json::from_str(command).expect("the command is a flow list of strings");
    // `- name: X` followed by `value: Y` (volumes and mounts have names too, without values).
    let lines: Vec<&str> = doc.lines().map(str::trim).collect();
    let env = lines
        .windows(2)
        .filter_map(|pair| Some((pair[0].strip_prefix("- name: ")?, pair[1].strip_prefix("value: ")?)))
        .map(|(name, value)| (name.to_owned(), value.trim_matches('"').to_owned()))
        .collect();
    Container { command, env }
}

/// The command with Kubernetes' `$(VAR)` references replaced from `env`.
fn expand(command: &[String], env: &BTreeMap<String, String>) -> String {
    command
        .iter()
        .map(|word| {
            let mut word = word.clone();
            for (name, value) in env {
                word = word.replace(&format!("$({name})"), value);
            }
            format!("'{word}'")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn kubernetes_indexed_job_then_merge_job_gives_the_unsharded_image() {
    let yaml = read("deploy/k8s/render-job.yaml");
    let docs: Vec<&str> = yaml.split("\n---\n").collect();
    let jobs: Vec<&str> = docs.into_iter().filter(|d| d.lines().any(|l| l == "kind: Job")).collect();
    assert_eq!(jobs.len(), 2, "the render Job and the merge Job");
    let render = jobs.iter().find(|d| d.contains("completionMode: Indexed")).expect("an Indexed Job");
    let merge = jobs.iter().find(|d| !d.contains("completionMode: Indexed")).expect("a merge Job");
    let completions: u32 = field(render, "completions:").and_then(|v| v.parse().ok()).expect("completions");
    let parallelism: u32 = field(render, "parallelism:").and_then(|v| v.parse().ok()).expect("parallelism");
    assert!(parallelism <= completions);
    let (render, merge) = (container(render), container(merge));
    assert!(render.command.iter().any(|w| w.ends_with("deploy/render-shard.sh")), "{:?}", render.command);
    assert!(merge.command.iter().any(|w| w.ends_with("deploy/merge.sh")), "{:?}", merge.command);
    for job in [&render, &merge] {
        assert_eq!(job.env["SHARD_COUNT"], completions.to_string(), "SHARD_COUNT is the Job's completions");
    }
    assert_eq!(render.env["PARTS_DIR"], merge.env["PARTS_DIR"], "one shared folder");
    assert!(yaml.contains("persistentVolumeClaim:") && yaml.contains("kind: PersistentVolumeClaim"));

    let (dir, scene, full) = setup();
    let dir = dir.path();
    // The YAML's env, with this machine's paths in place of the image's.
    let local = |yaml_env: &BTreeMap<String, String>| {
        let mut env = yaml_env.clone();
        env.extend(base_env(dir));
        env.insert("SCENE".to_owned(), scene.display().to_string());
        env.insert("PARTS_DIR".to_owned(), dir.join("parts").display().to_string());
        env.insert("OUTPUT".to_owned(), dir.join("final.png").display().to_string());
        env.insert("WAIT_SECONDS".to_owned(), "10".to_owned());
        env
    };
    let render_env = local(&render.env);
    let command = expand(&render.command, &render_env);
    for index in 0..completions {
        let mut env = render_env.clone();
        env.insert("JOB_COMPLETION_INDEX".to_owned(), index.to_string());
        assert_ok(&bash(&command, &env), &format!("shard {index}: {command}"));
    }
    let merge_env = local(&merge.env);
    assert_ok(&bash(&expand(&merge.command, &merge_env), &merge_env), "merge");
    assert!(rgba8(&dir.join("final.png")) == full, "the merged image is the unsharded render");

    // Where PyYAML is installed, the file must also parse as YAML, with the same shape.
    let check = "import sys, yaml; print([d['kind'] for d in yaml.safe_load_all(open(sys.argv[1]))])";
    match Command::new("python3").args(["-c", check]).arg(repo().join("deploy/k8s/render-job.yaml")).output()
    {
        Ok(out) if out.status.success() => {
            assert_eq!(text(&out.stdout).trim(), "['PersistentVolumeClaim', 'Job', 'Job']");
        }
        _ => eprintln!("no python3 with PyYAML here: the YAML syntax check is skipped"),
    }
}

#[test]
fn the_shard_script_says_what_is_missing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut env = base_env(dir.path());
    env.insert("SCENE".to_owned(), "scene.ron".to_owned());
    env.insert("PARTS_DIR".to_owned(), dir.path().display().to_string());
    let out = bash("bash deploy/render-shard.sh", &env);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no shard index"), "{}", text(&out.stderr));
    env.insert("JOB_COMPLETION_INDEX".to_owned(), "0".to_owned());
    let out = bash("bash deploy/render-shard.sh", &env);
    assert!(!out.status.success() && text(&out.stderr).contains("SHARD_COUNT"), "{}", text(&out.stderr));
    let mut env = base_env(dir.path());
    env.insert("PARTS_DIR".to_owned(), dir.path().join("none").display().to_string());
    env.insert("OUTPUT".to_owned(), dir.path().join("x.png").display().to_string());
    let out = bash("bash deploy/merge.sh", &env);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no partial films"), "{}", text(&out.stderr));
}

/// Runs `command` for shard 0 of 2 with `env`, sending it SIGTERM at sample 3 (the
/// fault plan: the renderer, which the script `exec`s, raises it on itself in the
/// middle of the render, as a scheduler's notice arrives), expecting exit 4 and a
/// checkpoint; then runs it again, which must resume and finish. Returns the second
/// run's stderr.
fn preempt_and_restart(command: &str, env: &BTreeMap<String, String>, parts: &Path) -> String {
    let mut preempted = env.clone();
    preempted.insert("RENDERER_FAULTS".to_owned(), "batch:1,signal:TERM@3".to_owned());
    let out = bash(command, &preempted);
    assert_eq!(out.status.code(), Some(4), "SIGTERM: exit 4\n{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("SIGTERM received: samples 0..3 of 0..10 saved"),
        "{}",
        text(&out.stderr)
    );
    assert!(parts.join("checkpoints/part-00000.ckpt.exr").exists());
    assert!(!parts.join("part-00000.exr").exists(), "no part from an interrupted shard");
    let out = bash(command, env);
    assert_ok(&out, "the restarted shard");
    assert!(!parts.join("checkpoints/part-00000.ckpt.exr").exists(), "the checkpoint is removed once done");
    text(&out.stderr)
}

#[test]
fn a_preempted_shard_resumes_from_its_checkpoint_on_slurm_and_kubernetes() {
    let (dir, scene, full) = setup();
    let dir = dir.path();
    let render = read("deploy/slurm/render.sbatch");
    assert!(render.contains("#SBATCH --requeue") && render.contains("#SBATCH --signal=TERM@"));

    // Slurm: the array task as sbatch runs it; `scontrol requeue` is recorded.
    let parts = dir.join("slurm-parts");
    let mut env = base_env(dir);
    env.extend([
        ("SCENE".to_owned(), scene.display().to_string()),
        ("PARTS_DIR".to_owned(), parts.display().to_string()),
        ("OUTPUT".to_owned(), dir.join("slurm.png").display().to_string()),
        ("SLURM_ARRAY_JOB_ID".to_owned(), "77".to_owned()),
        ("SLURM_ARRAY_TASK_MIN".to_owned(), "0".to_owned()),
        ("SLURM_ARRAY_TASK_COUNT".to_owned(), "2".to_owned()),
    ]);
    let task = |i: u32| {
        let mut env = env.clone();
        env.insert("SLURM_ARRAY_TASK_ID".to_owned(), i.to_string());
        env
    };
    let stderr = preempt_and_restart("bash deploy/slurm/render.sbatch", &task(0), &parts);
    assert!(stderr.contains("resuming shard 0/2"), "{stderr}");
    let calls = std::fs::read_to_string(dir.join("calls")).expect("scontrol was called");
    assert_eq!(calls.trim(), "scontrol requeue 77_0", "the interrupted task requeues itself");
    assert_ok(&bash("bash deploy/slurm/render.sbatch", &task(1)), "shard 1");
    assert_ok(&bash("bash deploy/merge.sh", &env), "merge");
    assert!(rgba8(&dir.join("slurm.png")) == full, "the merged image is the unsharded render");

    // Kubernetes: the Indexed Job's command; a replacement pod runs it again.
    let yaml = read("deploy/k8s/render-job.yaml");
    let render =
        yaml.split("\n---\n").find(|d| d.contains("completionMode: Indexed")).expect("an Indexed Job");
    assert!(render.contains("podFailurePolicy:"), "a policy that does not count preemption as failure");
    let policy: Vec<&str> = render.lines().map(str::trim).collect();
    assert!(
        policy.windows(3).any(|w| w == ["containerName: shard", "operator: In", "values: [4]"]),
        "exit 4 ignored"
    );
    assert!(policy.contains(&"- name: shard"), "the policy names the render container");
    assert!(policy.contains(&"- type: DisruptionTarget"), "evictions are ignored too");
    let container = container(render);
    let parts = dir.join("k8s-parts");
    let mut env = container.env.clone();
    env.extend(base_env(dir));
    env.extend([
        ("SCENE".to_owned(), scene.display().to_string()),
        ("PARTS_DIR".to_owned(), parts.display().to_string()),
        ("SHARD_COUNT".to_owned(), "2".to_owned()),
        ("OUTPUT".to_owned(), dir.join("k8s.png").display().to_string()),
    ]);
    let command = expand(&container.command, &env);
    let pod = |i: u32| {
        let mut env = env.clone();
        env.insert("JOB_COMPLETION_INDEX".to_owned(), i.to_string());
        env
    };
    let stderr = preempt_and_restart(&command, &pod(0), &parts);
    assert!(stderr.contains("resuming shard 0/2"), "{stderr}");
    assert_ok(&bash(&command, &pod(1)), "shard 1");
    assert_ok(&bash("bash deploy/merge.sh", &env), "merge");
    assert!(rgba8(&dir.join("k8s.png")) == full, "the merged image is the unsharded render");
}

#[test]
fn sigterm_from_outside_reaches_the_renderer_the_pod_command_execs() {
    // The container's command is `bash render-shard.sh`, which `exec`s the renderer:
    // the SIGTERM Kubernetes sends to the container's process is the renderer's. Big
    // enough to be rendering when its first checkpoint appears (the test waits for that
    // file, an event, then signals); the restart is stopped again one batch later.
    let dir = mixed_scene_dir(48, 32, 1 << 20);
    let dir = dir.path();
    let yaml = read("deploy/k8s/render-job.yaml");
    let render =
        yaml.split("\n---\n").find(|d| d.contains("completionMode: Indexed")).expect("an Indexed Job");
    let container = container(render);
    let parts = dir.join("parts");
    let mut env = container.env.clone();
    env.extend(base_env(dir));
    env.extend([
        ("SCENE".to_owned(), dir.join("scene.ron").display().to_string()),
        ("PARTS_DIR".to_owned(), parts.display().to_string()),
        ("SHARD_COUNT".to_owned(), "1".to_owned()),
        ("JOB_COMPLETION_INDEX".to_owned(), "0".to_owned()),
        ("CHECKPOINT_EVERY".to_owned(), "0".to_owned()),
    ]);
    let command = expand(&container.command, &env);
    let checkpoint = parts.join("checkpoints/part-00000.ckpt.exr");
    let mut pod = Command::new("bash")
        .arg("-c")
        .arg(format!("exec {command}"))
        .current_dir(repo())
        .env_clear()
        .envs(&env)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the pod's command");
    while !checkpoint.exists() {
        assert!(pod.try_wait().expect("wait").is_none(), "the shard ended before its first checkpoint");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let kill = Command::new("kill").args(["-TERM", &pod.id().to_string()]).status().expect("run kill");
    assert!(kill.success());
    let out = pod.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let done = renderer::shard::partial::read_info(&checkpoint).expect("a checkpoint").samples;
    assert!(done.start == 0 && done.end > 0, "{done:?}");
    // The replacement pod resumes from the checkpoint on the shared volume.
    env.insert("RENDERER_FAULTS".to_owned(), format!("batch:1,signal:TERM@{}", done.end + 1));
    let out = bash(&command, &env);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("resuming shard 0/1"), "{}", text(&out.stderr));
    let resumed = renderer::shard::partial::read_info(&checkpoint).expect("a checkpoint").samples;
    assert_eq!(resumed, 0..done.end + 1, "it went on from where it stopped");
}
