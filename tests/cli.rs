//! Command-line cases (trycmd): `tests/cmd/*.toml` run the binary on the fixtures in
//! `fixtures/cli/` and compare standard output, standard error and the exit status.
//! `TRYCMD=overwrite cargo test --test cli` rewrites the expected outputs after a deliberate
//! change.

#[test]
fn cli_cases() {
    trycmd::TestCases::new().case("tests/cmd/*.toml");
}
