// The templates are embedded with `include_dir!`, which cargo cannot see: rebuild when
// any of them changes.
fn main() {
    println!("cargo:rerun-if-changed=templates");
}
