"""``deepsim params``' rulebook column: a key's own comment, else the heading of the
citing comment block above it (or above its nearest parent)."""

from deepsim import runner
from deepsim.params import key_note

TEXT = """\
# File heading, not a citation
name: x

# §9 scaling table; A2: the table wins over §3.1.
scaling:
  "2": {rooms: 4}   # §9 two players
  "3": {rooms: 4}
#          thr  sto
weights: [1, 2]
""".splitlines()


def test_a_trailing_comment_wins():
    assert key_note(TEXT, 6) == "§9 two players"


def test_a_citing_block_above_gives_its_heading():
    assert key_note(TEXT, 5) == "§9 scaling table"


def test_a_block_that_cites_nothing_is_no_note():
    assert key_note(TEXT, 2) == ""          # "File heading": not a citation
    assert key_note(TEXT, 9) == ""          # a column header above a list
    assert key_note(TEXT, 7) == ""          # no comment on or above the line
    assert key_note(TEXT, None) == "" and key_note(TEXT, 99) == ""


def test_every_deepfall_number_names_its_section_or_gap():
    rows = runner.get_ruleset("deepfall").parameters()
    missing = [r["path"] for r in rows if not r["section"]
               and r["path"] not in ("name", "title", "rulebook")
               and not r["path"].startswith("players.")]
    assert missing == []
    by = {r["path"]: r["section"] for r in rows}
    assert by["scaling.4.rooms_per_floor"] == "§9 scaling table"
    assert by["callings.wardancer.worthy_end_multiplier"].startswith("§4 Worthy End")
