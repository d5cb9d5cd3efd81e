//! glTF node graphs built from arbitrary bytes (issue 37, H1): every node lists
//! children and a mesh as the bytes say, scenes name roots, so the fuzzer reaches
//! shared children, two parents, cycles, self-children, deep chains, roots that are
//! children and nodes past the list, around one valid triangle. The model is read as
//! a scene's mesh: it must never panic, hang or allocate by the graph's expansion, and
//! a refused model is an error at the mesh's line naming the file; an accepted one has
//! no more triangles than the nodes can place (each node at most once).

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scene_compiler::scene;

fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rtscene-fuzz-graphs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        dir
    })
}

/// One triangle (positions then u16 indices) as a data URI.
const BUFFER: &str = "data:application/octet-stream;base64,\
AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=";

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else { return };
    // Up to 64 nodes; each takes a byte for its mesh (odd: mesh 0) and a byte for its
    // number of children, then that many child indices (some past the nodes).
    let nodes_count = usize::from(count % 64) + 1;
    let mut bytes = rest.iter().copied();
    let mut nodes = Vec::new();
    for _ in 0..nodes_count {
        let mesh = bytes.next().unwrap_or(0) % 2 == 1;
        let children: Vec<String> = (0..bytes.next().unwrap_or(0) % 5)
            .map(|_| (bytes.next().unwrap_or(0) % 70).to_string())
            .collect();
        let mesh = if mesh { r#""mesh":0,"# } else { "" };
        nodes.push(format!(r#"{{{mesh}"children":[{}]}}"#, children.join(",")));
    }
    let roots: Vec<String> = (0..1 + bytes.next().unwrap_or(0) % 3)
        .map(|_| (bytes.next().unwrap_or(0) % 66).to_string())
        .collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[{}]}}],"nodes":[{}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"buffers":[{{"uri":"{BUFFER}","byteLength":44}}],
"bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":6}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
{{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}}]}}"#,
        roots.join(","),
        nodes.join(",")
    );
    let dir = folder();
    std::fs::write(dir.join("graph.gltf"), json).expect("write the model");
    let text = r#"Scene(
    camera: (look_from: (0, 0, 5), look_at: (0, 0, 0), vfov_deg: 40),
    materials: { "clay": Lambert(albedo: (0.6, 0.3, 0.2)) },
    meshes: [
        (file: "graph.gltf", material: "clay"),
    ],
)"#;
    match scene::parse(text, &dir.join("scene.ron").display().to_string()) {
        Ok(parsed) => {
            let triangles = parsed.meshes[0].data.triangles.len();
            assert!(
                triangles <= nodes_count,
                "{triangles} triangles from {nodes_count} nodes: a node placed twice"
            );
        }
        Err(err) => {
            let d = &err.diagnostics()[0];
            assert_eq!(d.line(), Some(5), "the error is at the mesh's line: {err}");
            assert!(d.message().contains("graph.gltf"), "the error names the model: {err}");
        }
    }
});
