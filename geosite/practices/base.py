"""The practice protocol: what every erosion-control practice says of itself, and the two things it does.

A practice (silt fence, a stone tracking pad, a sediment trap, mulch ...) is one module of
:mod:`geosite.practices` holding one :class:`Practice` subclass. Its class attributes are its descriptor,
read by every other part of geosite and written nowhere else:

- ``name``: the practice's name, which is also the ``type`` a submitted ``bmps`` feature of it carries;
- ``serves``: the profile's ``practice`` keys whose requirements it places and judges (a requirement is
  handed to the one practice serving its key); ``params``: the parameters such a requirement may give it;
  ``controls``: the ``[controls]`` numbers it reads; ``needs_dem``: whether it needs where flow goes;
- ``family``: what kind of control it is (a sediment ``barrier`` line, a ``cover`` over ground, a
  ``trap`` for sediment ...): a requirement judged by what a submission shows counts every practice of the
  family it asks for (silt fence and straw bales are both barriers);
- ``layers``: the layers it writes (:class:`OutputLayer`: name, geometry type, fields, legend and CAD looks),
  ``looks``: its styles on the sheets (QGIS's are written from them), ``submitted``: how a submitted
  feature of it is drawn (line, area, point), ``cad``/``blocks``/``linetypes``: its CAD look;
- ``pay``: its pay item (:class:`~geosite.practices.pay.PayItem`: the unit a contractor bids, how it is
  measured and counted, and a second unit where it is bid in two).

Its methods: :meth:`Practice.place` (what ``analyze`` proposes for one requirement: layers, report
entries, findings about where it goes) and :meth:`Practice.judge` (what ``check`` finds in the submitted
plan against that placement). Both read one :class:`~geosite.practices.context.Context` and return
findings born whole (their requirement's words, the submitted value, their place), never completed later.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from geosite.practices.context import Context, Outcome
from geosite.practices.pay import PAY_UNITS as PAY_UNITS  # re-exported: the practices' pay units
from geosite.practices.pay import PayItem
from geosite.rules.registry import Param
from geosite.symbols import Block, CadLook, Linetype, Style, Symbol, submitted_look

if TYPE_CHECKING:
    from geosite.rules import Finding, Requirement

#: what kind of control a practice is: a sediment barrier line, a trap or basin, ground cover, a
#: stone pad, inlet protection, a diversion, the treatment of pumped water, a distance kept
FAMILIES = ("barrier", "trap", "cover", "pad", "inlet", "diversion", "treatment", "setback", "schedule")
#: what a control geosite proposes is drawn in when its practice names no look of its own for it
PROPOSED_INK = "#6e2c00"


@dataclass(frozen=True)
class OutputLayer:
    """A layer a practice writes (``derived.gpkg``, the DXF, the sheets).

    ``geometry`` is its one declared geometry type; ``fields`` its columns (name, ``str``/``int``/
    ``float``/``bool``/``date``); ``rules`` its legend in QGIS, each ``(label, look key, where)`` with
    ``where``
    a ``(field, value)`` the rule applies to (None: every other feature); ``cad`` its CAD look, by the value
    of ``cad_field`` when several (a fence's ``side``), ``""`` the default; ``block``: the block a point
    feature is drawn as in CAD, with its attribute tags; ``label``: the feature's CAD label, from its row.
    """

    name: str
    geometry: str
    fields: tuple[tuple[str, str], ...]
    rules: tuple[tuple[str, str, tuple[str, Any] | None], ...]
    cad: Mapping[str, CadLook]
    cad_field: str | None = None
    block: str | None = None
    label: Any = None
    #: how QGIS labels the layer: (field or QGIS expression, where (field, value) or None, colour or None for
    #: the first rule's edge colour, size in points); None: no labels
    qgis_label: tuple[str, tuple[str, Any] | None, str | None, float] | None = None
    #: a point feature of the layer may carry its size (``footprint_sqft``, ``diameter_ft``, or ``length_ft``
    #: and ``width_ft``): its block is scaled to it
    sized: bool = False
    #: its features are the practice's controls (every view draws them from the plan's controls, in this
    #: layer's look); False: what the analysis found about the practice (setback zones, gaps in a fence),
    #: drawn from the plan's analysis layers
    control: bool = True

    def cad_look(self, value: Any = None) -> CadLook:
        """The CAD look of a feature whose ``cad_field`` is ``value`` (the default look otherwise)."""
        return self.cad.get(str(value) if value is not None else "", self.cad[""])


class Practice:
    """One erosion-control practice: its descriptor (class attributes, see the module notes) and its
    placement and judgement. Subclasses set the attributes and override the methods they need.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    standard: ClassVar[str] = ""
    family: ClassVar[str] = ""
    serves: ClassVar[tuple[str, ...]] = ()
    params: ClassVar[Mapping[str, Param]] = {}
    controls: ClassVar[tuple[str, ...]] = ()
    needs_dem: ClassVar[bool] = False
    #: the practices (by name) whose outcome this one's placement reads: dispatched before it
    after: ClassVar[tuple[str, ...]] = ()
    #: a temporary practice is removed once the ground it serves is stabilized (B(6)(f)); a cover stays
    temporary: ClassVar[bool] = True
    looks: ClassVar[Mapping[str, Style]] = {}
    layers: ClassVar[tuple[OutputLayer, ...]] = ()
    #: how a submitted feature of the practice is drawn, by geometry kind (polygon, line, point): the
    #: Style's attributes to use in the submitted green (geosite.maps.symbology.submitted_style)
    submitted: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: how a control geosite proposes is drawn, by its geometry family (polygon, line, point): a key of
    #: :attr:`looks`; a family not named is drawn in its submitted shape in :data:`PROPOSED_INK`
    drawn: ClassVar[Mapping[str, str]] = {}
    #: the site layers a feature of the practice stands at, where it may lie just beyond the site (inlet
    #: protection at a street inlet, a pad at the road)
    stands_at: ClassVar[tuple[str, ...]] = ()
    cad: ClassVar[CadLook | None] = None
    blocks: ClassVar[tuple[Block, ...]] = ()
    linetypes: ClassVar[tuple[Linetype, ...]] = ()
    pay: ClassVar[PayItem | None] = None

    @classmethod
    def symbols(cls, family: str, status: str) -> tuple[Symbol, ...]:
        """Every symbol a control of this practice may be drawn with as ``family`` (polygon, line, point)
        when its ``status`` is ``proposed`` or ``submitted``; the last applies to every control the others do
        not (the sheets' legend and the plan folder's QGIS rules are both written from these).

        Parameters
        ----------
        family : str
            The control's geometry family.
        status : str
            ``proposed`` (geosite's plan) or ``submitted`` (a submission's).

        Returns
        -------
        tuple of Symbol
            The symbols, the unconditional one last.
        """
        shape = dict(cls.submitted.get(family, {}))
        if status == "submitted":
            return (Symbol(f"{cls.name}_submitted_{family}", submitted_look(cls.name, shape, family)),)
        key = cls.drawn.get(family)
        if key is not None:
            return (Symbol(key, cls.looks[key]),)
        look = submitted_look(cls.name, shape, family)
        words = (cls.title or cls.name.replace("_", " ")) + (f" ({cls.standard})" if cls.standard else "")
        return (Symbol(f"{cls.name}_{family}", replace(look, edge=PROPOSED_INK, label=words)),)

    @classmethod
    def symbol(cls, family: str, attrs: Mapping[str, Any], status: str) -> Symbol:
        """The symbol a control of this practice with attributes ``attrs`` is drawn with (see
        :meth:`symbols`).

        Parameters
        ----------
        family : str
            The control's geometry family (polygon, line, point).
        attrs : Mapping
            Its attributes (a fence's ``side`` ...).
        status : str
            ``proposed`` or ``submitted``.

        Returns
        -------
        Symbol
            The first of :meth:`symbols` that fits it.
        """
        options = cls.symbols(family, status)
        return next((s for s in options if s.fits(attrs)), options[-1])

    @classmethod
    def params_for(cls, key: str) -> Mapping[str, Param]:
        """The parameters a requirement naming this practice by ``key`` (one of :attr:`serves`) may give."""
        return cls.params

    def place(self, ctx: Context, q: Requirement) -> Outcome:
        """What ``analyze`` proposes for requirement ``q`` on the site of ``ctx`` (an empty outcome for a
        practice that places nothing of its own).

        Parameters
        ----------
        ctx : Context
            The site, its profile, gate and decisions, the flow, the submitted plan and the outcomes so far.
        q : Requirement
            The profile's requirement this practice serves here.

        Returns
        -------
        Outcome
            Layers (site CRS), report entries and findings.
        """
        return Outcome(self.name, q.id)

    def judge(self, ctx: Context, q: Requirement, placed: Outcome) -> list[Finding]:
        """What the submitted plan of ``ctx`` shows against requirement ``q`` and this practice's
        placement ``placed`` (none for a practice that is not judged on its own).

        Parameters
        ----------
        ctx : Context
            As :meth:`place`.
        q : Requirement
            The profile's requirement.
        placed : Outcome
            What :meth:`place` returned for it.

        Returns
        -------
        list of Finding
            The findings, each whole: requirement, submitted value, geometry and layer where it has a place.
        """
        return []

    def finish(self, ctx: Context, q: Requirement, proposed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What this practice adds to the plan once every practice has proposed (``proposed``: all their
        controls): none by default.

        Parameters
        ----------
        ctx : Context
            As :meth:`place`.
        q : Requirement
            The profile's requirement it served.
        proposed : list of dict
            Every control proposed so far (see :attr:`Outcome.proposed`).

        Returns
        -------
        list of dict
            The controls it adds, in the same form.
        """
        return []

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The descriptor as JSON-ready data (``geosite profile practices`` and the docs print it).

        Returns
        -------
        dict
            Name, title, standard, family, the requirement keys served, its layers and pay item.
        """
        return {
            "name": cls.name,
            "title": cls.title,
            "standard": cls.standard,
            "family": cls.family,
            "serves": list(cls.serves),
            "layers": [layer.name for layer in cls.layers],
            "pay": None
            if cls.pay is None
            else [{"unit": u.unit, "how": u.how, "part": u.part or None} for u in cls.pay.units],
        }
