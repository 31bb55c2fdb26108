"""An alarm you can trust (SPEC 4.4): a critical finding only on strong evidence.

A rule made stricter is a warning (RULE_TIGHTENED), never corruption, and a rule made looser
always is; formatting, who a rule addresses, examples, pointers and guesses are no evidence;
where the audit cannot read a change it says so (RULE_UNCERTAIN) instead of guessing. Each
"no evidence" case is checked in English and in another language. The pads are Markdown
memory files, written here in the styles of real ones.
"""

from __future__ import annotations

import json

import pytest

from padtui.core.audit.rewrite import Audit, audit
from padtui.core.audit.wording import cut
from padtui.core.counting.tokens import counter_for
from padtui.core.formats import markdown
from padtui.core.model import Entry, Pad, make_entry

COUNTER = counter_for("cl100k_base")
CRITICAL_CODES = {"CONSTRAINT_DROPPED", "CONSTRAINT_WEAKENED"}


def md(body: str, title: str = "Rules") -> str:
    return f"# CLAUDE.md\n\n## Overview\n\nA small web shop.\n\n## {title}\n\n{body}\n"


def run(old: str, new: str) -> Audit:
    a = markdown.parse("old.md", old)[0]
    b = markdown.parse("new.md", new)[0]
    return audit(a, b, COUNTER)


def codes(result: Audit) -> set[str]:
    return {f.code for f in result.findings}


def clean(result: Audit) -> None:
    """No critical finding, and not called corruption."""
    assert not codes(result) & CRITICAL_CODES, result.findings
    assert result.verdict != "corruption"


def reasons(result: Audit, code: str) -> set[str]:
    return {r for f in result.findings if f.code == code for r in f.reasons}


# --- direction: stricter is a warning, looser is corruption -----------------------------------

TIGHTER = [
    # a caution made a prohibition
    ("- Be careful with force-pushing to main.", "- Never force-push to main.", "polarity"),
    # a stronger modal
    ("- Try to keep pull requests small.", "- Always keep pull requests small.", "modal"),
    ("- できれば テストを先に書く。", "- 必ずテストを先に書く。", "modal"),
    # a lower ceiling, a higher floor
    (
        "- Retry a failed upload at most 5 times.",
        "- Retry a failed upload at most 3 times.",
        "number",
    ),
    (
        "- Wait at least 2 reviews before merging.",
        "- Wait at least 3 reviews before merging.",
        "number",
    ),
    ("- Höchstens 5 Versuche pro Upload.", "- Höchstens 3 Versuche pro Upload.", "number"),
    # an exception taken away
    (
        "- Never push to main unless the release manager asks.",
        "- Never push to main.",
        "condition",
    ),
    (
        "- Ne jamais pousser sur main sauf en cas d'urgence.",
        "- Ne jamais pousser sur main.",
        "condition",
    ),
]


@pytest.mark.parametrize(("before", "after", "reason"), TIGHTER)
def test_a_rule_made_stricter_is_a_warning_never_corruption(
    before: str, after: str, reason: str
) -> None:
    result = run(md(before), md(after))
    clean(result)
    assert "RULE_TIGHTENED" in codes(result)
    assert reason in reasons(result, "RULE_TIGHTENED")


LOOSER = [
    ("- Never force-push to main.", "- Try not to force-push to main.", "modal"),
    ("- Always keep pull requests small.", "- Keep pull requests small where possible.", "modal"),
    ("- 必ずテストを先に書く。", "- できればテストを先に書く。", "modal"),
    (
        "- Retry a failed upload at most 3 times.",
        "- Retry a failed upload at most 5 times.",
        "number",
    ),
    (
        "- Wait at least 3 reviews before merging.",
        "- Wait at least 2 reviews before merging.",
        "number",
    ),
    ("- Höchstens 3 Versuche pro Upload.", "- Höchstens 5 Versuche pro Upload.", "number"),
    ("- Pin Python 3.12 in CI.", "- Pin Python 3.13 in CI.", "number"),
    (
        "- Never push to main.",
        "- Never push to main unless the change is urgent.",
        "condition",
    ),
    (
        "- Ne jamais pousser sur main.",
        "- Ne jamais pousser sur main sauf en cas d'urgence.",
        "condition",
    ),
    ("- Never call the billing API from tests.", "- Call the billing API from tests.", "polarity"),
    ("- 本番 DB に直接書き込まない。", "- 本番 DB に直接書き込む。", "polarity"),
]


@pytest.mark.parametrize(("before", "after", "reason"), LOOSER)
def test_a_rule_made_looser_is_always_corruption(before: str, after: str, reason: str) -> None:
    result = run(md(before), md(after))
    assert result.verdict == "corruption", result.findings
    assert "CONSTRAINT_WEAKENED" in codes(result)
    assert reason in reasons(result, "CONSTRAINT_WEAKENED")


def test_a_repaired_rule_passes_where_a_broken_one_fails() -> None:
    """The gate's view: the commit that repairs a rule is not blocked by its own repair."""
    weak = md("- Be careful with secrets in logs.")
    strict = md("- Never write secrets to logs.")
    assert run(weak, strict).verdict != "corruption"
    assert run(strict, weak).verdict == "corruption"


# --- no evidence: formatting -----------------------------------------------------------------

FORMATTING = [
    # CJK autoformat spacing, full- and half-width forms
    (
        "- 第1原則：本番環境には直接デプロイしない。",
        "- 第 1 原則：本番環境には直接デプロイしない。",
    ),
    ("- ＡＰＩは３回までリトライする。必ず守る。", "- APIは3回までリトライする。必ず守る。"),
    (
        "- 不要在 main 分支上直接提交代码，最多重试3次。",
        "- 不要在main分支上直接提交代码，最多重试 3 次。",
    ),
    (
        "- 一覧は、`docs/index.md`を唯一の情報源とし、CLAUDE.mdに台帳は置かない。",
        "- 一覧は、`docs/index.md` を唯一の情報源とし、CLAUDE.md に台帳は置かない。",
    ),
    # emphasis that splits words
    (
        "- Do **not** use `gif_creator` for this tab group.",
        "- Do not use `gif_creator` for this tab group.",
    ),
    ("- **Nie** direkt auf `main` pushen.", "- Nie direkt auf `main` pushen."),
    # list markers
    ("- Never run `rm -rf` in the repo root.", "* Never run `rm -rf` in the repo root."),
    ("- 不要修改 `config/prod.yaml`。", "1. 不要修改 `config/prod.yaml`。"),
    # a link's target
    (
        "- Always follow [the style guide](docs/style.md) for new pages.",
        "- Always follow [the style guide](https://example.org/style) for new pages.",
    ),
    (
        "- 新しいページは必ず[スタイルガイド](docs/style.md)に従う。",
        "- 新しいページは必ず[スタイルガイド](https://example.org/style)に従う。",
    ),
]


@pytest.mark.parametrize(("before", "after"), FORMATTING)
def test_formatting_is_no_evidence(before: str, after: str) -> None:
    clean(run(md(before), md(after)))


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("Rules", "- Never deploy on Fridays.\n- Always run `make check` first."),
        ("ルール", "- 金曜日にはデプロイしない。\n- 必ず先に `make check` を実行する。"),
    ],
)
def test_a_heading_level_changed_is_no_evidence(title: str, body: str) -> None:
    old = f"# CLAUDE.md\n\n## {title}\n\n{body}\n"
    new = f"# CLAUDE.md\n\n## Project\n\n### {title}\n\n{body}\n"
    clean(run(old, new))


def test_emphasis_inside_words_is_read_through() -> None:
    """ "do **not** use X" is a prohibition: dropping it is caught."""
    old = md("- Do **not** use `gif_creator`: it is broken for this tab group.\n- Keep logs.")
    new = md("- Keep logs.")
    assert "CONSTRAINT_DROPPED" in codes(run(old, new))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("- Retry twice.", "- Retry twice.\n"),
        ("- 二回まで再試行する。", "- 二回まで再試行する。\n\n"),
    ],
)
def test_white_space_only_is_unchanged(before: str, after: str) -> None:
    old = md(before).replace("\n\n", "\n\n\n", 1)
    assert run(old, md(after)).verdict == "unchanged"


def test_white_space_between_shared_entries_is_unchanged() -> None:
    """In a live view the entries two versions share at their ends are the very objects;
    a rule re-wrapped between them is unchanged, a word or a kind changed there is not."""
    head = [make_entry("note", f"Note {i} about the ledger.") for i in range(40)]
    tail = [make_entry("note", f"Later note {i}.") for i in range(40)]

    def pad(middle: Entry) -> Pad:
        return Pad(entries=[*head, middle, *tail])

    old = pad(make_entry("constraint", "Never retry a write after a 5xx."))
    wrapped = pad(make_entry("constraint", "Never retry a write\nafter a 5xx."))
    assert audit(old, wrapped, COUNTER).verdict == "unchanged"
    reworded = pad(make_entry("constraint", "Never retry a read after a 5xx."))
    assert audit(old, reworded, COUNTER).verdict != "unchanged"
    demoted = pad(make_entry("note", "Never retry a write after a 5xx."))
    assert audit(old, demoted, COUNTER).verdict != "unchanged"


# --- no evidence: who a rule addresses, examples, pointers ------------------------------------

ADDRESSEES = [
    (
        "- After every task, Cline MUST update `activeContext.md`.",
        "- After every task, MUST update `activeContext.md`.",
    ),
    ("- You must run `pnpm test` before a commit.", "- Must run `pnpm test` before a commit."),
    ("- Clineは必ず `activeContext.md` を更新する。", "- 必ず `activeContext.md` を更新する。"),
]


@pytest.mark.parametrize(("before", "after"), ADDRESSEES)
def test_who_a_rule_addresses_is_no_evidence(before: str, after: str) -> None:
    clean(run(md(before), md(after)))


EXAMPLES = [
    (
        '- Never mention "the playbook" in output; narrate as your own reasoning '
        '("I\'ll start by reading the renderer").',
        '- Never mention "the playbook" in output; narrate as your own reasoning '
        '("First I look at the data model").',
    ),
    (
        '- Antworte nie mit Floskeln, z. B. "Gute Frage!" oder "Gerne!".',
        '- Antworte nie mit Floskeln, z. B. "Sehr gern!".',
    ),
    ("- 不要使用缩写（例如 `cfg`、`mgr`）。", "- 不要使用缩写（例如 `tmp`）。"),
]


@pytest.mark.parametrize(("before", "after"), EXAMPLES)
def test_examples_quoted_inside_a_rule_are_no_evidence(before: str, after: str) -> None:
    result = run(md(before), md(after))
    clean(result)


def test_a_name_the_rule_is_about_is_evidence() -> None:
    """Not an example: the object of the rule, gone while the rule stands."""
    result = run(
        md('- Never mention "the playbook" in output.'), md("- Never mention it in output.")
    )
    assert result.verdict == "corruption"
    assert "name" in reasons(result, "CONSTRAINT_WEAKENED")


POINTERS = [
    (
        "1. [Mandatory Skill Usage](#mandatory-skill-usage)\n2. [Git rules](#git-rules)",
        "1. [Git rules](#git-rules)",
    ),
    ("- [必須のスキル](#skills)\n- [Git のルール](#git)", "- [Git のルール](#git)"),
    ("@.cursor/rules/base/core.mdc\n@.cursor/rules/other/git.mdc", "@.cursor/rules/other/git.mdc"),
]


@pytest.mark.parametrize(("before", "after"), POINTERS)
def test_contents_lines_and_imports_are_no_rules(before: str, after: str) -> None:
    clean(run(md(before), md(after)))


# --- what is a rule: positive restrictions yes, guesses no -----------------------------------

RESTRICTIONS = [
    "- Use yarn, not npm.",
    "- Use `httpx` instead of `requests`.",
    "- Prefer Vitest over Jest for new tests.",
    "- Verwende pnpm statt npm.",
    "- 使用 pnpm 而不是 npm。",
]


@pytest.mark.parametrize("rule", RESTRICTIONS)
def test_a_positive_restriction_is_a_rule(rule: str) -> None:
    old = md(f"{rule}\n- Keep the changelog current.", title="Project notes")
    new = md("- Keep the changelog current.", title="Project notes")
    assert "CONSTRAINT_DROPPED" in codes(run(old, new))


@pytest.mark.parametrize(
    "item",
    [
        "- [ ] All tests pass before the release is tagged.",
        "- [ ] リリース前に全テストが通っている",
    ],
)
def test_a_checklist_item_phrased_as_a_state_is_a_rule(item: str) -> None:
    old = md(f"{item}\n- [ ] The changelog is current.", title="Release checklist")
    new = md("- [ ] The changelog is current.", title="Release checklist")
    assert "CONSTRAINT_DROPPED" in codes(run(old.replace("## Overview", "## About"), new))


GUESSES = [
    "The 504s cluster at 02:14 UTC; smaller batches then might avoid them.",
    "The two unknown batches probably landed: the endpoint may take up to 15 minutes.",
    "Die Fehler kommen vielleicht vom Cache, kleinere Batches könnten sie vermeiden.",
]


@pytest.mark.parametrize("guess", GUESSES)
def test_a_guess_is_not_a_rule(guess: str) -> None:
    old = f"# Notes\n\n## Hypotheses\n\n- {guess}\n- Deploys run at 03:00.\n"
    new = "# Notes\n\n## Hypotheses\n\n- Deploys run at 03:00.\n"
    clean(run(old, new))


# --- carried in other words -------------------------------------------------------------------


def test_a_japanese_negative_form_keeps_a_prohibition() -> None:
    """ "置かず" (without placing) says what "置かない" (does not place) said."""
    old = md("- CLAUDE.md に台帳は置かない。")
    clean(run(old, md("- CLAUDE.md に台帳を置かず、実体を情報源とする。")))
    assert run(old, md("- CLAUDE.md に台帳を置く。")).verdict == "corruption"


def test_a_rule_restated_in_another_language_is_not_called_dropped() -> None:
    old = md(
        "- Always write articles in Japanese.\n- Include descriptive alt text for all images.\n"
        "- Never commit generated files."
    )
    new = md(
        "- 記事は必ず日本語で書く。\n- すべての画像に説明的な代替テキストを付ける。\n"
        "- 生成されたファイルは決してコミットしない。",
        title="ルール",
    )
    result = run(old, new)
    clean(result)
    assert "RULE_UNCERTAIN" in codes(result)
    assert result.verdict in ("compaction", "growth")  # (nothing it can tell was lost)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("- Never commit secrets to the repo.", "- Secrets must never be committed to the repo."),
        ("- Nunca hagas push directo a `main`.", "- No hagas nunca push directo a `main`."),
    ],
)
def test_a_rule_paraphrased_with_its_force_is_carried(before: str, after: str) -> None:
    clean(run(md(before), md(after)))


# --- verdicts by what happened --------------------------------------------------------------


def test_a_pad_that_grew_and_lost_nothing_is_growth() -> None:
    old = md("- Never deploy on Fridays.\n- Run `make check` first.")
    new = md(
        "- Never deploy on Fridays, nor on the eve of a holiday.\n- Run `make check` first, "
        "and read its report."
    )
    assert run(old, new).verdict == "growth"


# --- what a finding says ----------------------------------------------------------------------


def test_uncertain_names_the_rule_before_and_after() -> None:
    before = '- Never use filler, e.g. "Great question!".'
    after = '- Never use filler, e.g. "Happy to help!".'
    result = run(md(before), md(after))
    found = [f for f in result.findings if f.code == "RULE_UNCERTAIN"]
    assert found and result.verdict != "corruption"
    assert "Great question" in (found[0].before or "")
    assert "Happy to help" in (found[0].after or "")
    assert found[0].severity == "warning"


def test_every_rule_finding_carries_its_reasons_in_json() -> None:
    old = md(
        "- Never retry a write after a 5xx.\n- Keep batches under 500 rows.\n- Use yarn, not npm."
    )
    new = md("- Retry a write after a 5xx.\n- Keep batches under 800 rows.")
    data = json.loads(json.dumps(run(old, new).as_json()))
    by_code: dict[str, set[str]] = {}
    for f in data["findings"]:
        by_code.setdefault(f["code"], set()).update(f["reasons"])
    assert {"polarity", "number"} <= by_code["CONSTRAINT_WEAKENED"]
    assert by_code["CONSTRAINT_DROPPED"] == {"gone"}
    assert all("reasons" in f for f in data["findings"])


def test_a_message_is_never_cut_inside_a_word() -> None:
    text = "the rule about deployments on Fridays and the eve of holidays is gone"
    for width in range(20, len(text)):
        short = cut(text, width)
        assert len(short) <= width
        head = short.rstrip("\u2026")
        assert text.startswith(head)
        assert len(head) == len(text) or not text[len(head)].isalnum() or head.endswith(" ")


# --- in a conversation: what the user pasted, an answer's "no," -------------------------------

PASTED = [
    (
        "The deploy broke again:\n```\nERROR: migration failed, do not retry\n```\n"
        "2026-11-02 10:14:03 ERROR db connection failed\n"
        "Never edit the migrations by hand.",
        "Never edit the migrations by hand.",
    ),
    (
        "ログです:\n2026-11-02 10:14:03 ERROR 接続に失敗しました\n"
        "TypeError: cannot read properties of undefined\n"
        "本番DBには絶対に書き込まないでください。",
        "本番DBには絶対に書き込まないでください。",
    ),
]


@pytest.mark.parametrize(("message", "rule"), PASTED)
def test_pasted_logs_and_code_are_no_rules(message: str, rule: str) -> None:
    from padtui.core.agents.guard import message_rules

    assert [r.text for r in message_rules([(7, message, "your message")])] == [rule]


@pytest.mark.parametrize(
    ("answer", "summary"),
    [
        ("No, only the first file.", "- Only the first file is in scope."),
        ("Nein, nur die erste Datei.", "- Nur die erste Datei ist betroffen."),
    ],
)
def test_an_answers_no_is_no_prohibition(answer: str, summary: str) -> None:
    from padtui.core.agents.guard import judgement, message_rules

    rules = message_rules([(3, answer, "your message")])
    assert rules and not rules[0].text.lower().startswith(("no", "nein"))
    assert judgement(rules, f"## Rules\n\n{summary}\n").verdict.verdict == "compaction"


def test_a_shortened_path_is_the_same_name() -> None:
    from padtui.core.agents.guard import RuleInForce, judgement

    rule = RuleInForce("u1", "Never edit /home/me/shop/src/config.ts by hand.", "your message")
    summary = "## Rules\n\n- Never edit src/config.ts by hand.\n"
    assert judgement([rule], summary).verdict.verdict == "compaction"


def test_a_japanese_rule_kept_as_an_english_paraphrase_is_not_lost() -> None:
    from padtui.core.agents.guard import RuleInForce, judgement

    rules = [
        RuleInForce("u1", "本番データベースには絶対に書き込まないでください。", "your message"),
        RuleInForce("u2", "コミットの前に必ずテストを実行してください。", "your message"),
    ]
    summary = (
        "## Rules the user set\n\n- Never write to the production database.\n"
        "- Always run the tests before committing.\n"
    )
    assert judgement(rules, summary).verdict.verdict == "compaction"
