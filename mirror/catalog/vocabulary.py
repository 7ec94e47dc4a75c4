"""The trade vocabulary: the words homeowners type for what contractors sell, as data.

Only what the catalog cannot say about itself lives here. A catalog already
holds its own words (product names, brands, category names, model numbers;
the full-text index and the spelling table read those); it cannot say that
"central air", "AC" and "A/C" are one thing, that "furnace filter" is a filter
and not a furnace, that "HP" is a heat pump, or that "cheapest" asks for an
order. Each entry is written the way people write it; mirror/query/concepts.py
derives everything else (phrase tables, what each concept must not be confused
with, the concepts of a trade).

- `Concept.names`: phrases that name the thing in a question AND in a
  contractor's product names and category names ("heat pump", "central air").
- `Concept.typed`: phrases only people type: misspellings, run-together
  spellings and loose words ("furnance", "heatpump", "cooling"). A catalog is
  read for those that are spellings of the concept's names ("heatpump",
  "furnce": within the spelling step's edit distance, mirror/query/spelling.py),
  never for the loose words ("hot water" is no water heater in a catalog).
- `Concept.abbreviations`: the trade's own abbreviations of it ("hp", "ah",
  "wh", "dms"), read in a catalog's text (a product's name, category and
  slug, model numbers) as whole tokens, where unambiguous among the
  contractor's trades (a question reads those also in `typed`: "furn" in a
  question is as likely a SKU's piece as a furnace): never right after a number
  ("1/2 HP" is a motor), never for a contractor none of whose trades sells
  the concept, never when a concept of another of its trades lists it too,
  never against a name of another trade in the same text. An abbreviation
  listed by several concepts stands for all of them ("acgf": an A/C and a gas
  furnace). mirror/query/product_reading.py reads them at sync time.
- `Concept.hints`: words that suggest the concept and stay keywords as well
  (a brand such as "nest", a rating such as "merv").
- `Concept.parents`: the broader concepts it belongs to (a tankless water
  heater is a water heater): a search for the parent finds it too.
- `Concept.trades`: slugs of mirror/catalog/trades.py, the one trade table.

The other word lists (trades, kinds, price and tier words, filler) are plain
phrases. Letter case, punctuation (`a/c`, `t-stat`) and plural `s` do not
matter: they are read by the same tokenizer as a question (mirror/query/text.py).
A test shows every entry reaches what it names in a catalog that has it
(tests/test_query_vocabulary.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from mirror.catalog.trades import ACCESSORY, SYSTEM


@dataclass(frozen=True)
class Concept:
    """One kind of thing a homeowner asks for: an installed system, an accessory, or a group of them."""

    slug: str
    label: str  # how an answer names it: "air conditioner"
    kind: str | None  # SYSTEM (an installed system), ACCESSORY (mirror.catalog.trades), or None for a group of concepts
    trades: tuple[str, ...]  # mirror.catalog.trades slugs; () for what none of the trades sells
    names: tuple[str, ...]  # in questions and in catalogs
    typed: tuple[str, ...] = ()  # in questions (and in catalogs, those that spell a name)
    hints: tuple[str, ...] = ()  # suggest the concept, and stay keywords
    parents: tuple[str, ...] = ()
    abbreviations: tuple[str, ...] = ()  # the trade's, in catalogs (guarded by the contractor's trades)


HVAC, PLUMBING, ELECTRICAL, ROOFING = "hvac", "plumbing", "electrical", "roofing"

CONCEPTS: tuple[Concept, ...] = (
    # --- heating and cooling: installed systems ------------------------------------
    Concept(
        "air-conditioner",
        "air conditioner",
        SYSTEM,
        (HVAC,),
        names=(
            "air conditioner",
            "air conditioning",
            "a/c",
            "ac",
            "central air",
            "central ac",
            "central a/c",
            "central air conditioner",
            "central air conditioning",
            "ac unit",
            "condensing unit",
            "condenser",
            "cooling system",
        ),
        typed=(
            "aircon",
            "air con",
            "airconditioner",
            "airconditioning",
            "air conditioners unit",
            "air conditionar",
            "air conditoner",
            "air condtioner",
            "air condition",
            "air conditioner unit",
            "cooling",
            "centralair",
            "central aircon",
        ),
        abbreviations=("cond", "acgf"),  # a condenser; an A/C and gas furnace system
    ),
    Concept(
        "heat-pump",
        "heat pump",
        SYSTEM,
        (HVAC,),
        # A heat pump's outdoor unit is sold as its "condenser" as often as an A/C's is: the longer name wins.
        names=(
            "heat pump",
            "air source heat pump",
            "heat pump system",
            "heat pump condenser",
            "heat pump condensing unit",
        ),
        typed=("hp", "heatpump", "heat-pump", "heatpumps", "ashp", "heat pmp", "heet pump", "heatpump system"),
        parents=("heating",),
        abbreviations=("hp", "ashp", "hp cond"),  # an air-source heat pump; a heat pump's condenser ("HP cond")
    ),
    Concept(
        "furnace",
        "furnace",
        SYSTEM,
        (HVAC,),
        names=("furnace", "gas furnace", "electric furnace", "oil furnace", "forced air furnace"),
        typed=("furnance", "furnace unit", "furnaces unit", "furnce", "furnase", "gas heat", "forced air heat"),
        parents=("heating",),
        abbreviations=("furn", "acgf"),
    ),
    Concept(
        "ductless-mini-split",
        "ductless mini-split",
        SYSTEM,
        (HVAC,),
        names=(
            "ductless",
            "mini split",
            "ductless mini split",
            "ductless heat pump",
            "ductless ac",
            "mini split system",
        ),
        typed=("minisplit", "mini-splits", "ductless minisplit", "mini spilt", "ductless split"),
        parents=("heating",),
        abbreviations=("dms", "mini"),
    ),
    Concept(
        "geothermal",
        "geothermal heat pump",
        SYSTEM,
        (HVAC,),
        names=("geothermal", "geothermal heat pump", "ground source heat pump", "geothermal system"),
        typed=("geo thermal", "ground source", "gshp", "geothermal hp"),
        parents=("heating",),  # not under heat-pump: a search for a heat pump means an air-source one
        abbreviations=("gshp",),  # a ground-source heat pump
    ),
    Concept(
        "boiler",
        "boiler",
        SYSTEM,
        (HVAC, PLUMBING),
        names=("boiler", "gas boiler", "combi boiler", "steam boiler", "hot water boiler", "hydronic heating"),
        typed=(
            "boilor",
            "hydronic",
            "radiant heat",
            "radiant floor heating",
            "radiant floor",
            "in floor heating",
            "hot water heat",
            "radiator heat",
        ),
        parents=("heating",),
    ),
    Concept(
        "air-handler",
        "air handler",
        SYSTEM,
        (HVAC,),
        names=("air handler", "air handling unit", "fan coil"),
        typed=("airhandler", "ahu"),
        abbreviations=("ah", "ahu"),  # an air handler; an air handling unit
    ),
    Concept(
        "packaged-unit",
        "packaged unit",
        SYSTEM,
        (HVAC,),
        names=("packaged unit", "package unit", "packaged system", "rooftop unit", "gas pack"),
        typed=("rtu", "packaged heat pump"),
        abbreviations=("rtu",),  # a rooftop unit
    ),
    Concept(
        "heating",
        "heating system",
        None,
        (HVAC,),
        names=("heating system",),
        typed=("heating", "heat", "heater system", "heat system"),
    ),
    # --- heating and cooling: accessories ------------------------------------------
    Concept(
        "air-filter",
        "air filter",
        ACCESSORY,
        (HVAC,),
        names=(
            "air filter",
            "filter",
            "furnace filter",
            "ac filter",
            "a/c filter",
            "air conditioner filter",
            "hvac filter",
            "return filter",
            "pleated filter",
            "media filter",
            "air cleaner filter",
        ),
        typed=("airfilter", "furnacefilter", "fliter", "filtre", "air filtr", "furnace filtr"),
        hints=("merv",),
    ),
    Concept(
        "thermostat",
        "thermostat",
        ACCESSORY,
        (HVAC,),
        # "Wi-Fi", "smart" and "programmable" are features (FEATURES): "smart thermostat" ranks the Wi-Fi ones first.
        names=("thermostat", "learning thermostat"),
        typed=("t-stat", "tstat", "thermo stat", "thermostst", "thermastat", "themostat", "thermostate", "termostat"),
        hints=("nest", "ecobee"),
        abbreviations=("t-stat", "tstat", "stat"),  # "WiFi prog stat": the trade's short word for it
    ),
    Concept(
        "uv-light",
        "UV light",
        ACCESSORY,
        (HVAC,),
        names=(
            "uv light",
            "uv lamp",
            "uv germicidal light",
            "germicidal light",
            "ultraviolet light",
            "uv air purifier",
        ),
        typed=("uv", "uv lights", "uvc light"),
        parents=("indoor-air-quality",),
    ),
    Concept(
        "dehumidifier",
        "dehumidifier",
        ACCESSORY,
        (HVAC,),
        names=("dehumidifier", "whole home dehumidifier", "whole house dehumidifier"),
        typed=("dehumidifer", "de humidifier", "dehumidifyer"),
        parents=("indoor-air-quality",),
    ),
    Concept(
        "humidifier",
        "humidifier",
        ACCESSORY,
        (HVAC,),
        names=("humidifier", "whole home humidifier", "whole house humidifier"),
        typed=("humidifer",),
        parents=("indoor-air-quality",),
    ),
    Concept(
        "air-purifier",
        "air purifier",
        ACCESSORY,
        (HVAC,),
        names=("air purifier", "air cleaner", "electronic air cleaner", "air scrubber"),
        typed=("air purifyer",),
        parents=("indoor-air-quality",),
    ),
    Concept(
        "indoor-air-quality",
        "indoor air quality",
        None,
        (HVAC,),
        names=("indoor air quality",),
        typed=("iaq", "air quality"),
    ),
    Concept(
        "surge-protector",
        "surge protector",
        ACCESSORY,
        (ELECTRICAL, HVAC),
        names=("surge protector", "whole home surge protector", "surge protection", "surge suppressor"),
        typed=("surge protecter", "surge"),
    ),
    Concept(
        "condensate-pump",
        "condensate pump",
        ACCESSORY,
        (HVAC,),
        names=("condensate pump",),
        typed=("condensation pump", "condensate pumps"),
    ),
    Concept(
        "ductwork",
        "ductwork",
        ACCESSORY,
        (HVAC,),
        names=("ductwork", "duct work", "air duct", "duct replacement"),
        typed=("ducts", "duct cleaning"),
    ),
    Concept(
        "carbon-monoxide-detector",
        "carbon monoxide detector",
        ACCESSORY,
        (HVAC, ELECTRICAL),
        names=("carbon monoxide detector", "carbon monoxide alarm", "co detector", "co alarm"),
    ),
    # --- plumbing: installed systems -----------------------------------------------
    Concept(
        "water-heater",
        "water heater",
        SYSTEM,
        (PLUMBING,),
        names=("water heater", "hot water heater", "hot water system"),
        typed=(
            "waterheater",
            "hotwater heater",
            "hot waterheater",
            "hotwaterheater",
            "water heator",
            "hot water heator",
            "water htr",
            "hwh",
            "hot water",
        ),
        abbreviations=("wh", "hwh"),  # a (hot) water heater
    ),
    Concept(
        "tank-water-heater",
        "tank water heater",
        SYSTEM,
        (PLUMBING,),
        names=(
            "tank water heater",
            "storage water heater",
            "gas water heater",
            "electric water heater",
            "water heater tank",
            "hot water tank",
        ),
        typed=("tank style water heater", "tank heater"),
        parents=("water-heater",),
    ),
    Concept(
        "tankless-water-heater",
        "tankless water heater",
        SYSTEM,
        (PLUMBING,),
        names=(
            "tankless",
            "tankless water heater",
            "tankless hot water heater",
            "on demand water heater",
            "instant hot water",
            "instantaneous water heater",
        ),
        typed=("tankles", "tank less", "on demand hot water", "on-demand", "tankless heater", "tankless system"),
        parents=("water-heater",),
        abbreviations=("twh",),
    ),
    Concept(
        "heat-pump-water-heater",
        "heat pump water heater",
        SYSTEM,
        (PLUMBING,),
        names=("heat pump water heater", "hybrid water heater", "heat pump hot water heater"),
        typed=("hpwh", "hybrid hot water heater", "hybrid heater"),
        parents=("water-heater", "tank-water-heater"),  # a heat pump water heater heats a storage tank
        abbreviations=("hpwh", "hybrid"),  # to a plumber, a "hybrid" is a heat pump water heater
    ),
    Concept(
        "water-softener",
        "water softener",
        SYSTEM,
        (PLUMBING,),
        names=("water softener", "softener", "water conditioner", "water softening system"),
        typed=("softner", "water softner", "watersoftener", "hard water", "salt softener"),
        parents=("water-treatment",),
    ),
    Concept(
        "toilet",
        "toilet",
        SYSTEM,
        (PLUMBING,),
        names=("toilet", "toilet replacement", "commode"),
        typed=("toliet", "toilett", "toilets replacement"),
    ),
    Concept(
        "sump-pump",
        "sump pump",
        SYSTEM,
        (PLUMBING,),
        names=("sump pump", "sump", "battery backup sump pump", "basement pump"),
        typed=("sumppump", "sum pump", "sump pum"),
    ),
    Concept(
        "well-pump",
        "well pump",
        SYSTEM,
        (PLUMBING,),
        names=("well pump", "submersible well pump"),
    ),
    Concept(
        "water-filter",
        "water filter",
        ACCESSORY,
        (PLUMBING,),
        names=(
            "water filter",
            "sediment filter",
            "whole house filter",
            "whole house water filter",
            "whole house sediment filter",
            "water filtration",
            "reverse osmosis",
            "carbon filter",
        ),
        typed=("ro system", "drinking water filter"),
        parents=("water-treatment",),
    ),
    Concept(
        "water-treatment",
        "water treatment",
        None,
        (PLUMBING,),
        names=("water treatment",),
        typed=("water quality",),
    ),
    # --- plumbing: accessories and fixtures ----------------------------------------
    Concept(
        "garbage-disposal",
        "garbage disposal",
        ACCESSORY,
        (PLUMBING,),
        names=("garbage disposal", "garbage disposer", "food waste disposer", "disposal"),
        typed=("garbage disposall", "garbage dispoal", "insinkerator"),
    ),
    Concept(
        "expansion-tank",
        "expansion tank",
        ACCESSORY,
        (PLUMBING,),
        names=("expansion tank", "thermal expansion tank"),
        typed=("expansion tanks",),
    ),
    Concept(
        "drain-pan",
        "drain pan",
        ACCESSORY,
        (PLUMBING,),
        names=("drain pan", "water heater drain pan", "drip pan"),
    ),
    Concept(
        "water-heater-strap",
        "water heater strap",
        ACCESSORY,
        (PLUMBING,),
        names=("seismic strap", "water heater strap", "water heater seismic strap", "earthquake strap"),
    ),
    Concept(
        "pressure-reducing-valve",
        "pressure reducing valve",
        ACCESSORY,
        (PLUMBING,),
        names=("pressure reducing valve", "pressure regulator", "pressure regulating valve"),
        typed=("prv", "pressure valve"),
    ),
    Concept(
        "leak-detector",
        "water leak detector",
        ACCESSORY,
        (PLUMBING,),
        names=("leak detector", "water leak detector", "leak sensor", "water sensor", "flood sensor"),
        typed=("leak alarm", "water alarm"),
    ),
    Concept(
        "faucet",
        "faucet",
        ACCESSORY,
        (PLUMBING,),
        names=("faucet", "kitchen faucet", "bathroom faucet"),
        typed=("facet", "fawcet"),
    ),
    Concept(
        "sink",
        "sink",
        ACCESSORY,
        (PLUMBING,),
        names=("sink", "kitchen sink", "bathroom sink"),
    ),
    Concept(
        "shower",
        "shower or tub",
        ACCESSORY,
        (PLUMBING,),
        names=("shower", "bathtub", "shower valve", "walk in shower"),
        typed=("tub", "bath tub"),
    ),
    Concept(
        "drain-cleaning",
        "drain or sewer service",
        ACCESSORY,
        (PLUMBING,),
        names=("drain cleaning", "sewer line", "sewer", "clogged drain", "drain repair", "hydro jetting"),
        typed=("clog", "clogged", "sewer backup", "rooter"),
    ),
    Concept(
        "repiping",
        "repiping",
        ACCESSORY,
        (PLUMBING,),
        names=("repipe", "repiping", "water line", "gas line"),
        typed=("re pipe", "pipe replacement"),
    ),
    Concept(
        "backflow-preventer",
        "backflow preventer",
        ACCESSORY,
        (PLUMBING,),
        names=("backflow preventer", "backflow"),
    ),
    # --- electrical -----------------------------------------------------------------
    Concept(
        "electrical-panel",
        "electrical panel",
        SYSTEM,
        (ELECTRICAL,),
        names=("electrical panel", "panel upgrade", "breaker panel", "breaker box", "service panel", "fuse box"),
        typed=("electric panel", "circuit breaker"),
    ),
    Concept(
        "ev-charger",
        "EV charger",
        SYSTEM,
        (ELECTRICAL,),
        names=("ev charger", "electric car charger", "car charger", "level two charger", "ev charging station"),
        typed=("tesla charger", "ev charging", "electric vehicle charger"),
    ),
    Concept(
        "generator",
        "generator",
        SYSTEM,
        (ELECTRICAL,),
        names=("generator", "standby generator", "whole home generator", "backup generator"),
        typed=("genrator", "generater"),
        hints=("generac",),
    ),
    Concept(
        "outlet",
        "outlet or wiring",
        ACCESSORY,
        (ELECTRICAL,),
        names=("outlet", "gfci outlet", "receptacle", "wiring", "rewiring"),
        typed=("gfci", "rewire", "electrical outlet", "plug"),
    ),
    Concept(
        "lighting",
        "lighting",
        ACCESSORY,
        (ELECTRICAL,),
        # Not "lighting" alone: stemmed, it is "light", and would find a UV light.
        names=("light fixture", "recessed lighting", "ceiling fan", "can lights", "lighting fixture"),
        typed=("lighting", "recessed lights", "lights"),
    ),
    # --- roofing --------------------------------------------------------------------
    Concept(
        "roof",
        "roof",
        SYSTEM,
        (ROOFING,),
        names=("roof", "roof replacement", "new roof", "shingles", "metal roof", "roof repair"),
        typed=("roof leak", "reroof", "shingle"),
    ),
    Concept(
        "gutters",
        "gutters",
        ACCESSORY,
        (ROOFING,),
        names=("gutter", "gutter guards", "downspout", "seamless gutters"),
        typed=("gutters", "guttering"),
    ),
    Concept(
        "skylight",
        "skylight",
        ACCESSORY,
        (ROOFING,),
        names=("skylight",),
    ),
    # --- what none of the trades sells (recognised, so never guessed at) ----------------
    Concept(
        "solar-panels",
        "solar panels",
        SYSTEM,
        (),
        names=("solar", "solar panel", "solar system", "solar panels"),
        typed=("pv system", "photovoltaic"),
    ),
    Concept(
        "pool-and-spa",
        "pool or spa equipment",
        SYSTEM,
        (),
        names=("pool heater", "pool pump", "hot tub", "spa heater", "pool"),
        typed=("jacuzzi", "swimming pool"),
    ),
    Concept(
        "insulation",
        "insulation",
        SYSTEM,
        (),
        names=("insulation", "attic insulation", "spray foam", "blown in insulation"),
    ),
    Concept(
        "windows-and-doors",
        "windows or doors",
        SYSTEM,
        (),
        names=("window", "window replacement", "door", "garage door", "sliding door"),
        typed=("windows", "doors"),
    ),
    Concept(
        "fireplace",
        "fireplace or chimney",
        SYSTEM,
        (),
        names=("fireplace", "chimney", "wood stove", "gas fireplace", "pellet stove"),
    ),
    Concept(
        "appliance",
        "household appliance",
        SYSTEM,
        (),
        names=("refrigerator", "dishwasher", "washing machine", "dryer", "oven", "stove", "microwave"),
        typed=("fridge", "washer", "appliance", "appliances"),
    ),
    Concept(
        "home-improvement",
        "other home improvement",
        SYSTEM,
        (),
        names=("flooring", "carpet", "countertop", "cabinets", "painting", "drywall", "siding", "deck", "fence"),
        typed=("landscaping", "lawn", "pest control", "remodel", "kitchen remodel", "bathroom remodel", "paint"),
    ),
    Concept(
        "environmental",
        "mold, radon or asbestos work",
        SYSTEM,
        (),
        names=("mold remediation", "radon mitigation", "asbestos removal"),
        typed=("mold", "radon", "asbestos"),
    ),
)

# The trades (mirror/catalog/trades.py slugs) by the words people use for the contractor or the work.
TRADE_WORDS: dict[str, tuple[str, ...]] = {
    HVAC: (
        "hvac",
        "h.v.a.c.",
        "hvac contractor",
        "hvac company",
        "hvac technician",
        "hvac tech",
        "heating and cooling",
        "heating & cooling",
        "heating and air",
        "heating & air",
        "heating and air conditioning",
        "heating, ventilation and air conditioning",
        "heating contractor",
        "air conditioning contractor",
        "ac company",
        "ac contractor",
        "ac tech",
        "mechanical contractor",
        "havc",
        "hvac guy",
    ),
    PLUMBING: (
        "plumber",
        "plumbing",
        "plumbing contractor",
        "plumbing company",
        "plumbing service",
        "plumer",
        "plummer",
        "plumbing guy",
    ),
    ELECTRICAL: (
        "electrician",
        "electrical",
        "electrical contractor",
        "electrical company",
        "electrical work",
        "electrition",
        "electrican",
        "electricain",
    ),
    ROOFING: ("roofer", "roofing", "roofing contractor", "roofing company", "rofer"),
}

# "HVAC system", "installed system": the installed systems; "parts": the accessories.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    SYSTEM: (
        "system",
        "installed system",
        "whole system",
        "complete system",
        "full system",
        "whole house system",
        "whole home system",
        "replacement system",
        "new system",
    ),
    ACCESSORY: ("accessory", "accessories", "part", "parts", "add on", "addon", "add-ons"),
}

# Words that ask for an order by price.
PRICE_SORT_WORDS: dict[str, tuple[str, ...]] = {
    "price_low": (
        "cheapest",
        "cheap",
        "cheaper",
        "least expensive",
        "less expensive",
        "most affordable",
        "affordable",
        "inexpensive",
        "budget",
        "budget friendly",
        "lowest price",
        "lowest priced",
        "lowest cost",
        "low cost",
        "low price",
        "low priced",
        "economical",
        "bargain",
        "cheepest",
        "chepest",
        "best price",
        "best deal",
        "good price",
        "good deal",
        "great price",
        "great deal",
        "lowest",
    ),
    "price_high": ("most expensive", "priciest", "highest price", "highest priced", "costliest"),
}

# Words that ask for the most efficient: each kind of product ranked by the rating it is judged by, highest
# first (mirror/query/ranking.py). A rating named without a number ("highest SEER2 AC") ranks by that rating.
EFFICIENCY_WORDS: tuple[str, ...] = (
    "efficient",
    "most efficient",
    "more efficient",
    "most energy efficient",
    "energy efficient",
    "efficiency",
    "high efficiency",
    "highest efficiency",
    "energy saving",
    "energy savings",
    "energy saver",
    "save energy",
    "saves energy",
    "energy star",
    "energy star rated",
    "high",
    "higher",
    "highest",
    "highest rated",
)


@dataclass(frozen=True)
class Feature:
    """Something a product does that a homeowner may ask for ("wi-fi thermostat", "variable speed heat pump").

    A product states it in its name or its specs (a key, `{"wifi": true}`; a value, `{"compressor":
    "variable speed"}`; a count, `{"stages": 2}`), read by the sync (mirror/query/ranking.py); a question
    naming it ranks the products stating it first.
    """

    slug: str
    label: str  # how an answer names it
    names: tuple[str, ...]  # in questions and in catalogs (words of letters)
    written: tuple[str, ...] = ()  # also in catalogs and questions, with digits ("2-stage"), read spaces aside


FEATURES: tuple[Feature, ...] = (
    Feature("wifi", "Wi-Fi", ("wi-fi", "wifi", "wi-fi enabled", "wireless", "connected", "app controlled", "smart")),
    Feature("programmable", "programmable", ("programmable",)),
    Feature(
        "variable-speed",
        "variable speed",
        ("variable speed", "variable-speed", "variable capacity", "inverter", "inverter driven"),
    ),
    Feature("two-stage", "two-stage", ("two stage", "two-stage", "dual stage"), written=("2-stage", "2 stage")),
    Feature("modulating", "modulating", ("modulating", "modulation", "fully modulating")),
)

# Words that bound the price by the amount beside them ("under $5,000", "$500 or less", "between $5k and $8k").
PRICE_BOUND_WORDS: dict[str, tuple[str, ...]] = {
    "max": (
        "under",
        "below",
        "less than",
        "cheaper than",
        "no more than",
        "not more than",
        "max",
        "maximum",
        "up to",
        "at most",
        "within",
        "budget of",
        "budget is",
        "my budget is",
        "for under",
        "for less than",
        "or less",
    ),
    "min": ("over", "above", "more than", "at least", "minimum", "min", "starting at", "or more"),
    "between": ("between", "from"),
}

# The tiers (mirror.catalog.trades.TIERS slugs) by the words people use for them.
TIER_WORDS: dict[str, tuple[str, ...]] = {
    "best": (
        "best",
        "premium",
        "top",
        "top of the line",
        "top-of-the-line",
        "top end",
        "high end",
        "high-end",
        "highest end",
        "deluxe",
        "luxury",
        "ultimate",
        "top tier",
        "best tier",
        "best option",
        "the best",
    ),
    "better": ("better", "mid range", "mid-range", "midrange", "mid tier", "middle", "mid grade", "better tier"),
    "good": ("good", "basic", "entry level", "entry-level", "economy", "good tier", "base model", "cheapest tier"),
}

# Words that ask whether the contractor works somewhere (with a postal code).
COVERAGE_WORDS: tuple[str, ...] = (
    "serve",
    "serves",
    "service area",
    "service my area",
    "cover",
    "covers",
    "come to",
    "work in",
    "available in",
    "near",
    "nearby",
    "near me",
    "around",
    "in my area",
    "zip",
    "zip code",
    "postal code",
)

# Makers of what the trades install: a keyword ("lennox furnace"), never a misspelling to correct, and
# known even where a contractor does not carry it ("no Bosch here", rather than "not understood").
BRANDS: tuple[str, ...] = (
    "a. o. smith",
    "amana",
    "american standard",
    "bosch",
    "bradford white",
    "bryant",
    "carrier",
    "coleman",
    "culligan",
    "daikin",
    "delta",
    "fleck",
    "fujitsu",
    "goodman",
    "heil",
    "honeywell",
    "kohler",
    "lennox",
    "lg",
    "liberty pumps",
    "mitsubishi",
    "mitsubishi electric",
    "moen",
    "navien",
    "noritz",
    "payne",
    "pentair",
    "rheem",
    "rinnai",
    "ruud",
    "samsung",
    "tempstar",
    "toto",
    "trane",
    "wayne",
    "york",
    "zoeller",
)

# Words that ask to compare ("good vs best furnace").
COMPARISON_WORDS: tuple[str, ...] = (
    "vs",
    "versus",
    "compare",
    "comparison",
    "compared to",
    "difference",
    "differences",
)

# Words that ask what a price includes ("what is included with a furnace?").
INCLUSION_WORDS: tuple[str, ...] = (
    "included",
    "include",
    "includes",
    "including",
    "inclusive",
    "covered",
)

# Words that carry no product meaning in a question ("how much is a new ... installed?").
FILLER_WORDS: tuple[str, ...] = (
    "a",
    "about",
    "all",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "at",
    "be",
    "buy",
    "buying",
    "by",
    "can",
    "carry",
    "charge",
    "cost",
    "costs",
    "could",
    "do",
    "does",
    "estimate",
    "estimates",
    "fix",
    "fixing",
    "for",
    "get",
    "getting",
    "give",
    "got",
    "have",
    "has",
    "hello",
    "hi",
    "how",
    "i",
    "im",
    "if",
    "in",
    "install",
    "installation",
    "installed",
    "installing",
    "installs",
    "is",
    "it",
    "kind",
    "know",
    "like",
    "list",
    "local",
    "look",
    "looking",
    "maintenance",
    "me",
    "much",
    "my",
    "need",
    "needs",
    "new",
    "of",
    "offer",
    "old",
    "on",
    "one",
    "option",
    "options",
    "or",
    "our",
    "please",
    "price",
    "priced",
    "prices",
    "pricing",
    "purchase",
    "quote",
    "quotes",
    "repair",
    "repairs",
    "replace",
    "replacement",
    "replacing",
    "sell",
    "service",
    "services",
    "servicing",
    "should",
    "show",
    "some",
    "tell",
    "than",
    "thanks",
    "that",
    "the",
    "this",
    "to",
    "tune up",
    "type",
    "types",
    "unit",
    "units",
    "us",
    "want",
    "wants",
    "we",
    "what",
    "whats",
    "which",
    "will",
    "with",
    "would",
    "you",
    "your",
)
