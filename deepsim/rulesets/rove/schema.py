"""Rove's data model: ``rove.yaml`` (the numbers of the rules, the dice the odds read, and
the shipped content) and a designer's content file, validated (unknown keys refused,
bounds checked, names cross-checked).

Content is written in the rulebook's **action grammar** ("Actions"): an ability, a skill
card face, an item or an adversary's ability block is a list of actions, each an ``op``
with its numbers (X, range a-b, target X, push/pull, Ignore Defense, a Defense effect, the
action-flow mark). ``compile.py`` turns it into the kernel's int64 rows, so a real card is
data entry, not code. What the engine does not play yet (target patterns, summons, glyphs,
traps placed by actions, large adversaries, spawning) has no op here and is listed in
``data.SKIPPED_RULES``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from deepsim.rulesets.common import StrictModel

#: the six ether types (rulebook "Ether"), in the kernel's element order
ELEMENTS = ("water", "earth", "fire", "air", "crux", "morph")
#: the action grammar's ops (rulebook "Actions"; ``compile.OP`` numbers them)
OPS = ("dash", "jump", "teleport", "m_attack", "r_attack", "heal", "defense", "push", "pull",
       "generate", "suffer", "recover", "revive", "retreat")
#: the ether fields (Tiles, RO-TI4), in the kernel's tile order (layout.TL_AURA..)
FIELDS = ("aura", "miasma", "windscreen", "snapfrost", "everbloom", "wildfire")
#: what an augment may add to its action (rulebook "Skill Cards", Augment)
BONUSES = ("damage", "push", "pull", "target", "range", "ignore_defense", "x")
MAX_ACTIONS = 8           # actions in one ability, card face, item or block
MAX_BLOCKS = 8            # ability blocks on one adversary's track (damage tracker slots)
MAX_CARDS = 5             # skill cards a Rover brings (RO-R3)
MAX_ITEMS = 9             # 1 head, 1 body, 1 foot, 2 hands, 4 pockets (RO-R4)
MAX_TYPES = 8             # adversary types in one encounter
MAX_STANDEES = 8          # standees of one type (the damage tracker's slots 1-8)
#: what a react face may do in the engine's reaction window (RO-R5): Defense or a heal on
#: the reacting Rover itself, or an attack on the attacker
REACT_OPS = ("defense", "heal", "recover", "m_attack", "r_attack")


class Action(StrictModel):
    """One action of the grammar (rulebook "Actions").

    ``x`` is the action's X: movement points (dash, jump, teleport, retreat), damage
    (m_attack, r_attack), HP (heal, suffer, recover, revive), Defense tokens (defense),
    distance (push, pull) or wild dice (generate).
    """

    op: Literal[OPS]                                               # type: ignore[valid-type]
    x: int = Field(0, ge=0, le=20)
    range: list[int] = Field(default_factory=lambda: [0, 0], min_length=2, max_length=2,
                             description="Range a-b (RO-L2): hex distance a <= d <= b")
    targets: int = Field(1, ge=1, le=8, description="Target X (RO-L3)")
    push: int = Field(0, ge=0, le=10, description="Push X effect (RO-F1), after damage")
    pull: int = Field(0, ge=0, le=10, description="Pull X effect (RO-F2), after damage")
    ignore_defense: bool = False
    defense: int = Field(0, ge=0, le=10, description="a Defense X effect (RO-X1)")
    flow: bool = Field(False, description="action flow: performed only if the action "
                                           "before it was")
    element: Literal[ELEMENTS] | None = Field(  # type: ignore[valid-type]
        None, description="generate: a specific face instead of wild dice (RO-X6)")
    field: Literal[FIELDS] | None = Field(  # type: ignore[valid-type]
        None, description="an ether field placed into each target's space as an effect "
                          "(RO-TI5; after push and pull, RO-D5); Aura and Miasma carry the "
                          "performer's value")

    @model_validator(mode="after")
    def _range(self) -> Action:
        lo, hi = self.range
        if not 0 <= lo <= hi <= 30:
            raise ValueError(f"range {self.range}: expected [a, b] with 0 <= a <= b <= 30")
        # an attack, push, pull or revive reaches another unit (a heal may be 0-0: itself)
        if self.op in ("m_attack", "r_attack", "push", "pull", "revive") and hi == 0:
            raise ValueError(f"{self.op}: give its range [a, b] (b >= 1)")
        return self


class Augment(StrictModel):
    """An augment "condition: bonus" (rulebook "Skill Cards", Augment): an ether check,
    met when a die of ``need`` is among the dice spent (Ether Check; each augment needs its
    own die), or with ``drain`` a Drain, met by draining a die of ``need`` from the
    personal pool: the die returns to the general pool and a Dim die, if any is left,
    joins the personal pool (Drain; a rally face may drain too)."""

    need: Literal[ELEMENTS]                                        # type: ignore[valid-type]
    action: int = Field(0, ge=0, lt=MAX_ACTIONS, description="the action it augments "
                                                             "(0 = the face's first)")
    bonus: Literal[BONUSES]                                        # type: ignore[valid-type]
    value: int = Field(1, ge=0, le=10)
    drain: bool = Field(False, description="Drain a die of `need` instead of an ether "
                                           "check")


class Ability(StrictModel):
    """A Rover's ability token or an adversary's ability block."""

    name: str = Field(min_length=1)
    actions: list[Action] = Field(min_length=1, max_length=MAX_ACTIONS)


class Face(StrictModel):
    """One face of a skill card (rulebook "Skill Cards")."""

    name: str = Field(min_length=1)
    type: Literal["rally", "rave", "react"]
    cost: int = Field(0, ge=0, le=10, description="wild ether icons (ether or Dim dice)")
    ability_cost: bool = Field(False, description="extra cost: spend an ability activation")
    actions: list[Action] = Field(min_length=1, max_length=MAX_ACTIONS)
    augments: list[Augment] = Field(default_factory=list, max_length=2)

    @model_validator(mode="after")
    def _augments_point_at_actions(self) -> Face:
        for i, a in enumerate(self.augments):
            if a.action >= len(self.actions):
                raise ValueError(f"augments.{i}.action {a.action}: the face has "
                                 f"{len(self.actions)} actions (0..{len(self.actions) - 1})")
        if self.type == "react":
            bad = [a.op for a in self.actions if a.op not in REACT_OPS]
            if bad or self.cost or self.augments or self.ability_cost:
                raise ValueError(f"a react face (the one reaction window: when the Rover "
                                 f"is targeted by an attack) performs only "
                                 f"{', '.join(REACT_OPS)}, with no cost or augments; got "
                                 f"{bad or 'a cost or augments'}")
        return self


class Card(StrictModel):
    """A double-sided skill card: playing a face flips it to the other (rulebook, Flip)."""

    faces: list[Face] = Field(min_length=2, max_length=2)
    start: int = Field(0, ge=0, le=1, description="the face up at the encounter's start "
                                                  "(the player's choice)")


class Item(StrictModel):
    """An item (RO-R4): an equipment used once per round, or a consumable used once.

    ``bonus`` items add to the Rover's next attack of ``attack`` type (the Stripped
    weapons); ``actions`` items perform actions (Powdered Drakaen: Revive X).
    """

    placeholder: bool = True
    real: str = ""
    slot: Literal["head", "body", "foot", "hand", "pocket"]
    consumable: bool = False
    cost: int = Field(0, ge=0, le=10, description="infusion cost: dice from the infusion "
                                                  "pool")
    attack: Literal["any", "m_attack", "r_attack"] = "any"
    bonus: Literal["damage", "target", "range"] | None = None
    value: int = Field(0, ge=0, le=10)
    actions: list[Action] = Field(default_factory=list, max_length=MAX_ACTIONS)

    @model_validator(mode="after")
    def _one_effect(self) -> Item:
        if (self.bonus is None) == (not self.actions):
            raise ValueError("give an item either a bonus (with value) or actions, one of "
                             "the two")
        return self


class RoverClass(StrictModel):
    """A class board (RO-R1) with its abilities, skill cards and starting items."""

    placeholder: bool = True
    real: str = Field("", description="which parts are printed in the rulebook")
    hp: int = Field(ge=1, le=99)
    ether_limit: int = Field(ge=1, le=12)
    starting_ether: int = Field(ge=0, le=12)
    affinity: dict[Literal[ELEMENTS], int] = Field(  # type: ignore[valid-type]
        default_factory=dict)
    aura: int = Field(1, ge=-10, le=10)
    miasma: int = Field(-1, ge=-10, le=10)
    abilities: list[Ability] = Field(min_length=4, max_length=4)
    cards: list[Card] = Field(default_factory=list, max_length=MAX_CARDS)
    reactions: list[Card] = Field(default_factory=list, max_length=2)
    items: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)

    @model_validator(mode="after")
    def _card_types(self) -> RoverClass:
        for group, ok in (("cards", ("rally", "rave")), ("reactions", ("react",))):
            for i, card in enumerate(getattr(self, group)):
                for j, face in enumerate(card.faces):
                    if face.type not in ok:
                        raise ValueError(f"{group}.{i}.faces.{j}.type '{face.type}': "
                                         f"{group} faces are {' or '.join(ok)} (RO-R3)")
        return self


class Block(StrictModel):
    """An adversary ability block on its track (RO-A2)."""

    name: str = Field(min_length=1)
    actions: list[Action] = Field(min_length=1, max_length=MAX_ACTIONS)
    on_advance: list[Action] = Field(default_factory=list, max_length=MAX_ACTIONS)


class Adversary(StrictModel):
    """An adversary stat block (RO-A1)."""

    placeholder: bool = True
    real: str = ""
    tier: Literal["minion", "mini_boss", "boss"] = "minion"
    hp: int = Field(ge=1, le=199)
    hp_per_rover: int = Field(0, ge=0, le=50, description="HP + this x R")
    defense: int = Field(0, ge=0, le=10)
    affinity: dict[Literal[ELEMENTS], int] = Field(  # type: ignore[valid-type]
        default_factory=dict)
    flying: bool = False
    ignores_dangerous: bool = False
    large: bool = False
    blocks: list[Block] = Field(min_length=1, max_length=MAX_BLOCKS,
                                description="the ability track, left to right")


class Placement(StrictModel):
    """A skull on the map (rulebook "Map Icons"): the type, its space and its meeples."""

    type: str = Field(min_length=1)
    at: list[int] = Field(min_length=2, max_length=2, description="[column, row] of the map")
    min_rovers: int = Field(2, ge=2, le=4, description="meeples: placed when R >= this "
                                                       "(bosses and mini-bosses always)")


class FieldTile(StrictModel):
    """An ether field printed on the encounter's map (Tiles, RO-TI4)."""

    type: Literal[FIELDS]                                          # type: ignore[valid-type]
    at: list[int] = Field(min_length=2, max_length=2, description="[column, row] of the map")


class Encounter(StrictModel):
    """An encounter: map, placements, objective, round limit, terrain rules, challenges.

    ``map`` is a text grid of odd-r rows (odd rows shifted half a hex right, as drawn),
    one token a space, tokens separated by blanks: ``.`` normal, ``#`` barrier, ``o`` open
    air, ``~`` difficult, ``!`` dangerous, ``^`` object, ``F`` a start flag (normal), ``E``
    an exit (normal), ``T`` a trap (normal with a trap tile), ``x`` off the map (the map
    edge: not a barrier). Short rows end at the map edge.
    """

    placeholder: bool = True
    real: str = ""
    map: str = Field(min_length=1)
    round_limit: int = Field(ge=1, le=30)
    objective: Literal["slay_all", "slay_type", "reach_exit"] = "slay_all"
    objective_type: str | None = None
    dangerous_suffer: int = Field(1, ge=0, le=20, description="terrain rules: what a "
                                  "dangerous space deals")
    trap_suffer: int = Field(2, ge=0, le=20, description="terrain rules: what a trap deals")
    placements: list[Placement] = Field(min_length=1, max_length=MAX_TYPES * MAX_STANDEES)
    challenges: dict[str, list[str]] = Field(default_factory=dict)
    fields: list[FieldTile] = Field(default_factory=list, description="ether fields on the "
                                    "map at the start (an Aura or Miasma: the adversaries')")
    special: list[str] = Field(default_factory=list, description="special rules that need "
                               "a hook in the engine (counted; not played)")

    @model_validator(mode="after")
    def _objective(self) -> Encounter:
        if (self.objective == "slay_type") != (self.objective_type is not None):
            raise ValueError("objective_type is given with objective: slay_type, and only "
                             "then")
        return self


class Turn(StrictModel):
    """RO-R6: what a Rover may do in one turn."""

    abilities: int = Field(2, ge=0, le=4)
    skill_cards: int = Field(1, ge=0, le=2)
    reactions: int = Field(1, ge=0, le=2, description="RO-R5: reaction tokens a Rover "
                           "has each round (0: no reaction window)")


class Ether(StrictModel):
    """Readings of the ether economy (Ether Dice and Ether Pools; Skill Cards)."""

    drain_first: bool = Field(False, description="AMB-R33: a rave's Drain augment drains "
                              "before the cost is paid (the Dim gained may pay it); "
                              "false: a die left after paying the cost is drained")


class Ai(StrictModel):
    """The adversary AI's readings (rulebook "Primary Action Logic")."""

    tiebreak: Literal["rover_favoured", "adversarial", "first"] = Field(
        "rover_favoured", description="AMB-R1: the players decide a remaining tie")
    closest: Literal["path", "hex"] = Field("path", description="AMB-R20")
    unreachable: Literal["approach", "stay"] = Field("approach", description="AMB-R21")


class Los(StrictModel):
    """Line-of-Sight: "if this line does not cross any part of a barrier space"."""

    graze_blocks: bool = Field(True, description="AMB-R29: a line touching only a "
                               "barrier's corner or edge is blocked")


class Hard(StrictModel):
    """Hard Mode modifiers the engine plays."""

    tiebreak_fewest_hp: bool = False
    start_hp_fraction: float = Field(1.0, gt=0.0, le=1.0)


class Story(StrictModel):
    """Story Mode boosts (each optional)."""

    personal_die: bool = False
    infusion_die: bool = False
    free_item: str | None = None


class Scale(StrictModel):
    """Designer's dials (not rules): multiply HP, add rounds; for response checks."""

    rover_hp: float = Field(1.0, gt=0.0, le=10.0)
    adversary_hp: float = Field(1.0, gt=0.0, le=10.0)
    round_limit_add: int = Field(0, ge=-10, le=20)


class Fields(StrictModel):
    """Ether fields (Tiles, RO-TI4): the numbers the rulebook prints and AMB-R30."""

    scope: Literal["each_target_of_first_action", "first_target"] = Field(
        "each_target_of_first_action", description="AMB-R30: an Aura or Miasma on a "
        "multi-target attack")
    snapfrost: int = Field(2, ge=0, le=10, description="movement points lost")
    everbloom: int = Field(1, ge=0, le=10, description="recovered at turn end")
    wildfire: int = Field(1, ge=0, le=10, description="suffered at turn start")


class Damage(StrictModel):
    clamp_at_zero: bool
    windscreen: int = Field(ge=0, le=20)
    aura_adversary: int = Field(ge=-20, le=20)
    miasma_adversary: int = Field(ge=-20, le=20)


class Profile(StrictModel):
    placeholder: bool = True
    values: dict[str, int]


class Party(StrictModel):
    target_win_rate: float = Field(gt=0.0, lt=1.0)


class Rovers(StrictModel):
    min: int = Field(2, ge=2, le=4)
    max: int = Field(4, ge=2, le=4)


class Content(StrictModel):
    """A designer's content file (scenario ``content: PATH``): classes, items, adversaries
    and encounters in the grammar; each replaces or adds to the shipped one of its name."""

    classes: dict[str, RoverClass] = Field(default_factory=dict)
    items: dict[str, Item] = Field(default_factory=dict)
    adversaries: dict[str, Adversary] = Field(default_factory=dict)
    encounters: dict[str, Encounter] = Field(default_factory=dict)


class RoveData(Content):
    """The whole data file ``rove.yaml``."""

    name: Literal["rove"]
    title: str
    elements: list[str]
    ether_die: list[str] = Field(min_length=1, max_length=30)
    dim_die: list[str] = Field(min_length=1, max_length=30)
    damage_die: list[str] = Field(min_length=1, max_length=30)
    dim_supply: int = Field(ge=0, le=100)
    damage: Damage
    affinity_profiles: dict[str, Profile]
    turn: Turn
    ether: Ether = Field(default_factory=Ether)
    fields: Fields = Field(default_factory=Fields)
    ability_die: list[int] = Field(min_length=1, max_length=12)
    ai: Ai
    los: Los
    hard: Hard
    story: Story
    scale: Scale
    party: Party
    rovers: Rovers

    @model_validator(mode="after")
    def _faces(self):
        known = set(self.elements) | {"dim"}
        for where, faces in (("ether_die", self.ether_die), ("dim_die", self.dim_die),
                             ("damage_die", self.damage_die)):
            bad = [f for f in faces if f not in known]
            if bad:
                raise ValueError(f"{where}: unknown faces {bad}; faces: {sorted(known)}")
        for p, spec in self.affinity_profiles.items():
            bad = [e for e in spec.values if e not in self.elements]
            if bad:
                raise ValueError(f"affinity_profiles.{p}: unknown elements {bad}")
        if tuple(self.elements) != ELEMENTS:
            raise ValueError(f"elements: expected the rulebook's six, {list(ELEMENTS)}")
        if any(v < 0 or v > 6 for v in self.ability_die):
            raise ValueError("ability_die: faces advance 0..6 blocks")
        return self
