"""prompts/README.md lists every prompt file and describes the persona files."""

from shared.prompts import PROMPTS_DIR


def test_the_readme_table_lists_every_prompt_and_the_personas_folder() -> None:
    readme = (PROMPTS_DIR / "README.md").read_text(encoding="utf-8")
    table = {
        line.split("|")[1].strip().strip("`") for line in readme.splitlines() if line[:3] == "| `"
    }
    prompts = {path.stem for path in PROMPTS_DIR.glob("*.md") if path.stem != "README"}
    assert prompts <= table, f"not in the README table: {sorted(prompts - table)}"
    assert "`personas/<name>.md`" in readme
