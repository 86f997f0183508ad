"""District and state names → IMD district normals and IMD meteorological subdivision.

Three tables drive the resolution, all written out below so that an actuary can audit them:

* ``STATE_ALIASES``: pin-code state names (2025) → the state keys of the district-normals
  file (2000s spellings; Telangana and Ladakh did not exist yet).
* ``DISTRICT_ALIASES``: per state, pin-code district names that cannot be matched by
  spelling → the 2000s normals district. ``renamed`` means the same area under a new name;
  ``parent`` means a district carved out after the normals were published, mapped to the
  district it was carved from (the one holding most of its area).
* ``SUBDIVISION_BY_STATE`` / ``SUBDIVISION_SPLITS``: IMD subdivisions follow state borders
  except in split states, where the split is by district. The district lists of the split
  states follow IMD's grouping, which the district-normals file preserves (its districts are
  listed subdivision by subdivision, e.g. Konkan, Madhya Maharashtra, Marathwada, Vidarbha).

Resolution order for a (district, state, lat, lon) query, first hit wins; the kind is
reported in :class:`ClimateSite.match_kind`:

1. ``exact``: same spelling (case and surrounding blanks ignored) in the same state.
2. ``normalised``: equal after :func:`normalise_name` (punctuation, "&", parentheses,
   "DISTRICT", spaced initials), or equal with blanks removed ("BANAS KANTHA").
3. ``renamed`` / ``parent``: ``DISTRICT_ALIASES``.
4. ``prefix``: one normalised name is a prefix of the other and the match is unique in the
   state (the normals file truncates names to 13 characters: "BANGALORE URB").
5. ``fuzzy``: ``difflib`` similarity ≥ 0.85, unique best match in the state.
6. ``nearest_district``: with coordinates, the matched district whose pin-code centroid is
   nearest (great-circle), within the state when the state is known, else anywhere.
7. ``state_mean``: without coordinates, the mean normal of the state's districts and the
   state's most common subdivision.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from dataclasses import dataclass
from statistics import median

import numpy as np

from .climate_data import ClimateData

SUBDIVISIONS = (
    "ANDAMAN & NICOBAR ISLANDS",
    "ARUNACHAL PRADESH",
    "ASSAM & MEGHALAYA",
    "NAGA MANI MIZO TRIPURA",
    "SUB HIMALAYAN WEST BENGAL & SIKKIM",
    "GANGETIC WEST BENGAL",
    "ORISSA",
    "JHARKHAND",
    "BIHAR",
    "EAST UTTAR PRADESH",
    "WEST UTTAR PRADESH",
    "UTTARAKHAND",
    "HARYANA DELHI & CHANDIGARH",
    "PUNJAB",
    "HIMACHAL PRADESH",
    "JAMMU & KASHMIR",
    "WEST RAJASTHAN",
    "EAST RAJASTHAN",
    "WEST MADHYA PRADESH",
    "EAST MADHYA PRADESH",
    "GUJARAT REGION",
    "SAURASHTRA & KUTCH",
    "KONKAN & GOA",
    "MADHYA MAHARASHTRA",
    "MATATHWADA",
    "VIDARBHA",
    "CHHATTISGARH",
    "COASTAL ANDHRA PRADESH",
    "TELANGANA",
    "RAYALSEEMA",
    "TAMIL NADU",
    "COASTAL KARNATAKA",
    "NORTH INTERIOR KARNATAKA",
    "SOUTH INTERIOR KARNATAKA",
    "KERALA",
    "LAKSHADWEEP",
)

# Pin-code / modern state names → state keys of the normals file (normalised spelling).
STATE_ALIASES: dict[str, tuple[str, ...]] = {
    "ODISHA": ("ORISSA",),
    "UTTARAKHAND": ("UTTARANCHAL",),
    "CHHATTISGARH": ("CHATISGARH",),
    "HIMACHAL PRADESH": ("HIMACHAL",),
    "PUDUCHERRY": ("PONDICHERRY",),
    "TELANGANA": ("ANDHRA PRADESH",),  # bifurcated 2014; normals list it under AP
    "LADAKH": ("JAMMU AND KASHMIR",),  # UT since 2019
    "DADRA AND NAGAR HAVELI": ("DADAR NAGAR HAVELI",),
    "DAMAN AND DIU": ("DAMAN AND DUI",),
    "THE DADRA AND NAGAR HAVELI AND DAMAN AND DIU": ("DADAR NAGAR HAVELI", "DAMAN AND DUI"),
    "DADRA AND NAGAR HAVELI AND DAMAN AND DIU": ("DADAR NAGAR HAVELI", "DAMAN AND DUI"),
    # Pin codes of Puducherry's Tamil Nadu enclave are filed under Tamil Nadu.
    "TAMIL NADU": ("TAMIL NADU", "PONDICHERRY"),
    "ORISSA": ("ORISSA",),
}

# Normals-file state key → subdivision, for states that are not split by district.
SUBDIVISION_BY_STATE: dict[str, str] = {
    "ANDAMAN AND NICOBAR ISLANDS": "ANDAMAN & NICOBAR ISLANDS",
    "ARUNACHAL PRADESH": "ARUNACHAL PRADESH",
    "ASSAM": "ASSAM & MEGHALAYA",
    "MEGHALAYA": "ASSAM & MEGHALAYA",
    "NAGALAND": "NAGA MANI MIZO TRIPURA",
    "MANIPUR": "NAGA MANI MIZO TRIPURA",
    "MIZORAM": "NAGA MANI MIZO TRIPURA",
    "TRIPURA": "NAGA MANI MIZO TRIPURA",
    "SIKKIM": "SUB HIMALAYAN WEST BENGAL & SIKKIM",
    "ORISSA": "ORISSA",
    "JHARKHAND": "JHARKHAND",
    "BIHAR": "BIHAR",
    "UTTARANCHAL": "UTTARAKHAND",
    "HARYANA": "HARYANA DELHI & CHANDIGARH",
    "DELHI": "HARYANA DELHI & CHANDIGARH",
    "CHANDIGARH": "HARYANA DELHI & CHANDIGARH",
    "PUNJAB": "PUNJAB",
    "HIMACHAL": "HIMACHAL PRADESH",
    "JAMMU AND KASHMIR": "JAMMU & KASHMIR",
    "CHATISGARH": "CHHATTISGARH",
    "GOA": "KONKAN & GOA",
    "DADAR NAGAR HAVELI": "GUJARAT REGION",
    "KERALA": "KERALA",
    "TAMIL NADU": "TAMIL NADU",
    "LAKSHADWEEP": "LAKSHADWEEP",
}

# Split states (and split UTs): subdivision → normals-file districts (normalised names).
SUBDIVISION_SPLITS: dict[str, dict[str, tuple[str, ...]]] = {
    "ANDHRA PRADESH": {
        "COASTAL ANDHRA PRADESH": (
            "EAST GODAVARI",
            "WEST GODAVARI",
            "GUNTUR",
            "KRISHNA",
            "NELLORE",
            "PRAKASAM",
            "SRIKAKULAM",
            "VISAKHAPATNAM",
            "VIZIANAGARAM",
        ),
        "TELANGANA": (
            "ADILABAD",
            "HYDERABAD",
            "KARIMNAGAR",
            "KHAMMAM",
            "MAHABUBNAGAR",
            "MEDAK",
            "NALGONDA",
            "NIZAMABAD",
            "WARANGAL",
            "RANGAREDDY",
        ),
        "RAYALSEEMA": ("ANANTAPUR", "CHITTOOR", "KUDDAPAH", "KURNOOL"),
    },
    "KARNATAKA": {
        "COASTAL KARNATAKA": ("UTTAR KANNADA", "DAKSHIN KANDA", "UDUPI"),
        "NORTH INTERIOR KARNATAKA": (
            "BELGAM",
            "BIDAR",
            "BIJAPUR",
            "DHARWAD",
            "GULBARGA",
            "YADGIR",
            "RAICHUR",
            "BAGALKOTE",
            "GADAG",
            "HAVERI",
            "KOPPAL",
        ),
        "SOUTH INTERIOR KARNATAKA": (
            "BANGALORE RUR",
            "BELLARY",
            "CHIKMAGALUR",
            "CHITRADURGA",
            "KODAGU",
            "HASSAN",
            "KOLAR",
            "MANDYA",
            "MYSORE",
            "SHIMOGA",
            "TUMKUR",
            "BANGALORE URB",
            "CHAMARAJANAGA",
            "DAVANGERE",
            "RAMNAGAR",
            "CHICKBALLAPUR",
        ),
    },
    "MAHARASHTRA": {
        "KONKAN & GOA": (
            "MUMBAI CITY",
            "RAIGAD",
            "RATNAGIRI",
            "THANE",
            "SINDHUDURG",
            "MUMBAI SUB",
        ),
        "MADHYA MAHARASHTRA": (
            "AHMEDNAGAR",
            "DHULE",
            "JALGAON",
            "KOLHAPUR",
            "NASHIK",
            "PUNE",
            "SANGLI",
            "SATARA",
            "SOLAPUR",
            "NANDURBAR",
        ),
        "MATATHWADA": (
            "AURANGABAD",
            "BEED",
            "NANDED",
            "OSMANABAD",
            "PARBHANI",
            "LATUR",
            "JALNA",
            "HINGOLI",
        ),
        "VIDARBHA": (
            "AKOLA",
            "AMRAVATI",
            "BHANDARA",
            "BULDHANA",
            "CHANDRAPUR",
            "NAGPUR",
            "YAVATMAL",
            "WARDHA",
            "GADCHIROLI",
            "WASHIM",
            "GONDIA",
        ),
    },
    "MADHYA PRADESH": {
        "WEST MADHYA PRADESH": (
            "BETUL",
            "VIDISHA",
            "BHIND",
            "DATIA",
            "DEWAS",
            "DHAR",
            "GUNA",
            "GWALIOR",
            "HOSHANGABAD",
            "INDORE",
            "JHABUA",
            "MANDSAUR",
            "MORENA",
            "KHANDWA",
            "KHARGONE",
            "RAISEN",
            "RAJGARH",
            "RATLAM",
            "SEHORE",
            "SHAJAPUR",
            "SHIVPURI",
            "UJJAIN",
            "BHOPAL",
            "HARDA",
            "NEEMUCH",
            "SHEOPUR",
            "BARWANI",
            "ASHOKNAGAR",
            "BURHANPUR",
            "ALIRAJPUR",
        ),
        "EAST MADHYA PRADESH": (
            "BALAGHAT",
            "CHHATARPUR",
            "CHHINDWARA",
            "JABALPUR",
            "MANDLA",
            "NARSINGHPUR",
            "PANNA",
            "REWA",
            "SAGAR",
            "SATNA",
            "SEONI",
            "SHAHDOL",
            "SIDHI",
            "TIKAMGARH",
            "KATNI",
            "DINDORI",
            "UMARIA",
            "DAMOH",
            "ANUPPUR",
            "SINGRAULI",
        ),
    },
    "RAJASTHAN": {
        "WEST RAJASTHAN": (
            "BARMER",
            "BIKANER",
            "CHURU",
            "SRI GANGANAGA",
            "JAISALMER",
            "JALORE",
            "JODHPUR",
            "NAGAUR",
            "PALI",
            "HANUMANGARH",
        ),
        "EAST RAJASTHAN": (
            "AJMER",
            "ALWAR",
            "BANSWARA",
            "BHARATPUR",
            "BHILWARA",
            "BUNDI",
            "CHITTORGARH",
            "DUNGARPUR",
            "JAIPUR",
            "JHALAWAR",
            "JHUNJHUNU",
            "KOTA",
            "SAWAI MADHOPUR",
            "SIKAR",
            "SIROHI",
            "TONK",
            "UDAIPUR",
            "DHOLPUR",
            "BARAN",
            "DAUSA",
            "RAJSAMAND",
            "KARAULI",
            "PRATAPGARH",
        ),
    },
    "UTTAR PRADESH": {
        "EAST UTTAR PRADESH": (
            "ALLAHABAD",
            "AZAMGARH",
            "BAHRAICH",
            "BALLIA",
            "BANDA",
            "BARABANKI",
            "BASTI",
            "DEORIA",
            "FAIZABAD",
            "FARRUKHABAD",
            "FATEHPUR",
            "GHAZIPUR",
            "GONDA",
            "GORAKHPUR",
            "HARDOI",
            "JAUNPUR",
            "KANPUR NAGAR",
            "KHERI LAKHIMP",
            "LUCKNOW",
            "MIRZAPUR",
            "PRATAPGARH",
            "RAE BARELI",
            "SITAPUR",
            "SULTANPUR",
            "UNNAO",
            "VARANASI",
            "SONBHADRA",
            "MAHARAJGANJ",
            "MAU",
            "SIDDHARTH NGR",
            "KUSHINAGAR",
            "AMBEDKAR NAGAR",
            "KANNAUJ",
            "BALRAMPUR",
            "KAUSHAMBI",
            "SAHUJI MAHARA",
            "KANPUR DEHAT",
            "CHANDAULI",
            "SANT KABIR NGR",
            "SANT RAVIDAS",
            "SHRAVASTI NGR",
        ),
        "WEST UTTAR PRADESH": (
            "AGRA",
            "ALIGARH",
            "BAREILLY",
            "BIJNOR",
            "BADAUN",
            "BULANDSHAHAR",
            "ETAH",
            "ETAWAH",
            "HAMIRPUR",
            "JALAUN",
            "JHANSI",
            "LALITPUR",
            "MAINPURI",
            "MATHURA",
            "MEERUT",
            "MORADABAD",
            "MUZAFFARNAGAR",
            "PILIBHIT",
            "RAMPUR",
            "SAHARANPUR",
            "SHAHJAHANPUR",
            "GHAZIABAD",
            "FIROZABAD",
            "MAHOBA",
            "MAHAMAYA NAGA",
            "AURAIYA",
            "BAGPAT",
            "JYOTIBA PHULE",
            "GAUTAM BUDDHA",
            "KANSHIRAM NAG",
        ),
    },
    "WEST BENGAL": {
        "SUB HIMALAYAN WEST BENGAL & SIKKIM": (
            "COOCH BEHAR",
            "DARJEELING",
            "JALPAIGURI",
            "MALDA",
            "SOUTH DINAJPUR",
            "NORTH DINAJPUR",
        ),
        "GANGETIC WEST BENGAL": (
            "BANKURA",
            "BIRBHUM",
            "BURDWAN",
            "HOOGHLY",
            "HOWRAH",
            "PURULIA",
            "MURSHIDABAD",
            "NADIA",
            "NORTH 24 PARG",
            "SOUTH 24 PARG",
            "EAST MIDNAPOR",
            "WEST MIDNAPOR",
            "KOLKATA",
        ),
    },
    "GUJARAT": {
        "GUJARAT REGION": (
            "AHMEDABAD",
            "BANASKANTHA",
            "BARODA",
            "BHARUCH",
            "VALSAD",
            "DANGS",
            "KHEDA",
            "MEHSANA",
            "PANCHMAHALS",
            "SABARKANTHA",
            "SURAT",
            "GANDHINAGAR",
            "NARMADA",
            "NAVSARI",
            "ANAND",
            "PATAN",
            "DAHOD",
            "TAPI",
        ),
        "SAURASHTRA & KUTCH": (
            "AMRELI",
            "BHAVNAGAR",
            "JAMNAGAR",
            "JUNAGADH",
            "KUTCH",
            "RAJKOT",
            "SURENDRANAGAR",
            "PORBANDAR",
        ),
    },
    "DAMAN AND DUI": {"GUJARAT REGION": ("DAMAN",), "SAURASHTRA & KUTCH": ("DIU",)},
    "PONDICHERRY": {
        "TAMIL NADU": ("PONDICHERRY", "KARAIKAL"),
        "KERALA": ("MAHE",),
        "COASTAL ANDHRA PRADESH": ("YANAM",),
    },
}

_R, _P = "renamed", "parent"
# state key → {normalised pin-code district: (normalised normals district, kind)}
DISTRICT_ALIASES: dict[str, dict[str, tuple[str, str]]] = {
    "ANDAMAN AND NICOBAR ISLANDS": {"NORTH AND MIDDLE ANDAMAN": ("N AND M ANDAMAN", _R)},
    "ANDHRA PRADESH": {
        # Andhra Pradesh (2022 reorganisation) → 2000s parent district
        "ALLURI SITHARAMA RAJU": ("VISAKHAPATNAM", _P),
        "ANAKAPALLI": ("VISAKHAPATNAM", _P),
        "ANNAMAYYA": ("KUDDAPAH", _P),
        "BAPATLA": ("GUNTUR", _P),
        "ELURU": ("WEST GODAVARI", _P),
        "KAKINADA": ("EAST GODAVARI", _P),
        "KONASEEMA": ("EAST GODAVARI", _P),
        "NTR": ("KRISHNA", _P),
        "NANDYAL": ("KURNOOL", _P),
        "PALNADU": ("GUNTUR", _P),
        "PARVATHIPURAM MANYAM": ("VIZIANAGARAM", _P),
        "SPSR NELLORE": ("NELLORE", _R),
        "SRI SATHYA SAI": ("ANANTAPUR", _P),
        "TIRUPATI": ("CHITTOOR", _P),
        "VISAKHAPATANAM": ("VISAKHAPATNAM", _R),
        "YSR": ("KUDDAPAH", _R),
        "YSR KADAPA": ("KUDDAPAH", _R),
        "KADAPA": ("KUDDAPAH", _R),
        "CUDDAPAH": ("KUDDAPAH", _R),
        # Telangana (2016-2019 reorganisations) → 2000s parent district
        "BHADRADRI KOTHAGUDEM": ("KHAMMAM", _P),
        "HANUMAKONDA": ("WARANGAL", _P),
        "JANGOAN": ("WARANGAL", _P),
        "JAYASHANKAR BHUPALAPALLY": ("WARANGAL", _P),
        "JOGULAMBA GADWAL": ("MAHABUBNAGAR", _P),
        "JAGITIAL": ("KARIMNAGAR", _P),
        "KAMAREDDY": ("NIZAMABAD", _P),
        "KUMURAM BHEEM ASIFABAD": ("ADILABAD", _P),
        "MAHABUBABAD": ("WARANGAL", _P),
        "MANCHERIAL": ("ADILABAD", _P),
        "MEDCHAL MALKAJGIRI": ("RANGAREDDY", _P),
        "MULUGU": ("WARANGAL", _P),
        "NAGARKURNOOL": ("MAHABUBNAGAR", _P),
        "NARAYANPET": ("MAHABUBNAGAR", _P),
        "NIRMAL": ("ADILABAD", _P),
        "PEDDAPALLI": ("KARIMNAGAR", _P),
        "RAJANNA SIRCILLA": ("KARIMNAGAR", _P),
        "RANGA REDDY": ("RANGAREDDY", _R),
        "SANGAREDDY": ("MEDAK", _P),
        "SIDDIPET": ("MEDAK", _P),
        "SURYAPET": ("NALGONDA", _P),
        "VIKARABAD": ("RANGAREDDY", _P),
        "WANAPARTHY": ("MAHABUBNAGAR", _P),
        "YADADRI BHUVANAGIRI": ("NALGONDA", _P),
    },
    "ARUNACHAL PRADESH": {
        "LONGDING": ("TIRAP", _P),
        "LOWER SIANG": ("WEST SIANG", _P),
        "LOWER SUBANSIRI": ("LOW SUBANSIRI", _R),
        "NAMSAI": ("LOHIT", _P),
        "PAKKE KESSANG": ("EAST KAMENG", _P),
        "SHI YOMI": ("WEST SIANG", _P),
        "UPPER SUBANSIRI": ("SUBANSIRI F D", _R),
        "KRA DAADI": ("LOW SUBANSIRI", _P),
        "KAMLE": ("LOW SUBANSIRI", _P),
        "LEPA RADA": ("WEST SIANG", _P),
    },
    "ASSAM": {
        "BAJALI": ("BARPETA", _P),
        "BISWANATH": ("SHONITPUR", _P),
        "CHARAIDEO": ("SIVASAGAR", _P),
        "DIMA HASAO": ("NORTH CACHAR", _R),
        "HOJAI": ("NAGAON", _P),
        "MAJULI": ("JORHAT", _P),
        "MARIGAON": ("MORIGAON", _R),
        "SONITPUR": ("SHONITPUR", _R),
        "SOUTH SALMARA MANCACHAR": ("DHUBRI", _P),
        "WEST KARBI ANGLONG": ("KARBI ANGLONG", _P),
        "TAMULPUR": ("BAKSA BARPETA", _P),
    },
    "BIHAR": {
        "JEHANABAD": ("JAHANABAD", _R),
        "KAIMUR": ("BHABUA", _R),
        "PASHCHIM CHAMPARAN": ("WEST CHAMPARAN", _R),
        "PURBI CHAMPARAN": ("EAST CHAMPARAN", _R),
        "PURNIA": ("PURNEA", _R),
    },
    "CHATISGARH": {
        "BALOD": ("DURG", _P),
        "BALODA BAZAR": ("RAIPUR", _P),
        "BALRAMPUR": ("SURGUJA", _P),
        "BEMETARA": ("DURG", _P),
        "GARIYABAND": ("RAIPUR", _P),
        "GAURELLA PENDRA MARWAHI": ("BILASPUR", _P),
        "KABIRDHAM": ("KOWARDHA", _R),
        "KONDAGAON": ("BASTAR", _P),
        "KOREA": ("KORIYA", _R),
        "MUNGELI": ("BILASPUR", _P),
        "SUKMA": ("DANTEWADA", _P),
        "SURAJPUR": ("SURGUJA", _P),
        "DANTEWADA SOUTH BASTAR": ("DANTEWADA", _R),
    },
    "DELHI": {
        "CENTRAL": ("CENTRAL DELHI", _R),
        "EAST": ("EAST DELHI", _R),
        "NORTH": ("NORTH DELHI", _R),
        "NORTH EAST": ("NE DELHI", _R),
        "NORTH WEST": ("NW DELHI", _R),
        "SOUTH": ("SOUTH DELHI", _R),
        "SOUTH WEST": ("SW DELHI", _R),
        "WEST": ("WEST DELHI", _R),
        "SHAHDARA": ("EAST DELHI", _P),
        "SOUTH EAST": ("SOUTH DELHI", _P),
    },
    "GUJARAT": {
        "AHMADABAD": ("AHMEDABAD", _R),
        "ARVALLI": ("SABARKANTHA", _P),
        "BOTAD": ("BHAVNAGAR", _P),
        "CHHOTAUDEPUR": ("BARODA", _P),
        "CHHOTA UDAIPUR": ("BARODA", _P),
        "DANG": ("DANGS", _R),
        "DEVBHUMI DWARKA": ("JAMNAGAR", _P),
        "DOHAD": ("DAHOD", _R),
        "GIR SOMNATH": ("JUNAGADH", _P),
        "KACHCHH": ("KUTCH", _R),
        "MAHESANA": ("MEHSANA", _R),
        "MORBI": ("RAJKOT", _P),
        "MAHISAGAR": ("PANCHMAHALS", _P),
        "VADODARA": ("BARODA", _R),
    },
    "HARYANA": {
        "CHARKI DADRI": ("BHIWANI", _P),
        "GURUGRAM": ("GURGAON", _R),
        "NUH": ("MEWAT", _R),
        "SONIPAT": ("SONEPAT", _R),
    },
    "JAMMU AND KASHMIR": {
        "BANDIPORA": ("BANDIPORE", _R),
        "BUDGAM": ("BADGAM", _R),
        "GANDERBAL": ("GANDERWAL", _R),
        "KISHTWAR": ("KISTWAR", _R),
        "SHOPIAN": ("SHOPAN", _R),
        "LEH LADAKH": ("LADAKH", _R),
        "LEH": ("LADAKH", _R),
    },
    "JHARKHAND": {
        "EAST SINGHBUM": ("EAST SINGHBHU", _R),
        "EAST SINGHBHUM": ("EAST SINGHBHU", _R),
        "SAHEBGANJ": ("SAHIBGANJ", _R),
        "SARAIKELA KHARSAWAN": ("SERAIKELA KHA", _R),
    },
    "KARNATAKA": {
        "BALLARI": ("BELLARY", _R),
        "BELAGAVI": ("BELGAM", _R),
        "BELGAUM": ("BELGAM", _R),
        "BENGALURU RURAL": ("BANGALORE RUR", _R),
        "BENGALURU URBAN": ("BANGALORE URB", _R),
        "CHIKKABALLAPURA": ("CHICKBALLAPUR", _R),
        "CHIKKAMAGALURU": ("CHIKMAGALUR", _R),
        "DAKSHINA KANNADA": ("DAKSHIN KANDA", _R),
        "KALABURAGI": ("GULBARGA", _R),
        "MYSURU": ("MYSORE", _R),
        "RAMANAGARA": ("RAMNAGAR", _R),
        "SHIVAMOGGA": ("SHIMOGA", _R),
        "TUMAKURU": ("TUMKUR", _R),
        "UTTARA KANNADA": ("UTTAR KANNADA", _R),
        "VIJAYAPURA": ("BIJAPUR", _R),
        "VIJAYNAGAR": ("BELLARY", _P),
        "VIJAYANAGARA": ("BELLARY", _P),
    },
    "KERALA": {
        "KANNUR": ("CANNUR", _R),
        "KASARAGOD": ("KASARGOD", _R),
    },
    "LAKSHADWEEP": {},
    "MADHYA PRADESH": {
        "AGAR MALWA": ("SHAJAPUR", _P),
        "EAST NIMAR": ("KHANDWA", _R),
        "WEST NIMAR": ("KHARGONE", _R),
        "NIWARI": ("TIKAMGARH", _P),
    },
    "MAHARASHTRA": {
        "MUMBAI": ("MUMBAI CITY", _R),
        "MUMBAI SUBURBAN": ("MUMBAI SUB", _R),
        "PALGHAR": ("THANE", _P),
    },
    "MANIPUR": {
        "JIRIBAM": ("IMPHAL EAST", _P),
        "KAKCHING": ("THOUBAL", _P),
        "KANGPOKPI": ("SENAPATI", _P),
        "NONEY": ("TAMENGLONG", _P),
        "PHERZAWL": ("CHURACHANDPUR", _P),
        "TENGNOUPAL": ("CHANDEL", _P),
        "KAMJONG": ("UKHRUL", _P),
    },
    "MEGHALAYA": {
        "EAST JAINTIA HILLS": ("JAINTIA HILLS", _P),
        "WEST JAINTIA HILLS": ("JAINTIA HILLS", _P),
        "NORTH GARO HILLS": ("EAST GARO HIL", _P),
        "SOUTH WEST GARO HILLS": ("WEST GARO HIL", _P),
        "SOUTH WEST KHASI HILLS": ("W KHASI HILL", _P),
        "WEST KHASI HILLS": ("W KHASI HILL", _R),
        "EASTERN WEST KHASI HILLS": ("W KHASI HILL", _P),
    },
    "MIZORAM": {
        "HNAHTHIAL": ("LUNGLEI", _P),
        "KHAWZAWL": ("CHAMPHAI", _P),
        "SAITUAL": ("AIZAWL", _P),
    },
    "NAGALAND": {"KIPHIRE": ("KEPHRIE", _R)},
    "ORISSA": {
        "ANUGUL": ("ANGUL", _R),
        "BALANGIR": ("BOLANGIR", _R),
        "BALESHWAR": ("BALASORE", _R),
        "JAJAPUR": ("JAJPUR", _R),
        "KENDUJHAR": ("KEONDJHARGARH", _R),
        "KEONJHAR": ("KEONDJHARGARH", _R),
        "KHORDHA": ("KHURDA", _R),
        "NABARANGPUR": ("NAWARANGPUR", _R),
        "NUAPADA": ("NAWAPARA", _R),
        "BOUDH": ("BOUDHGARH", _R),
        "SUBARNAPUR": ("SONEPUR", _R),
    },
    "PUNJAB": {
        "FAZILKA": ("FEROZEPUR", _P),
        "FIROZEPUR": ("FEROZEPUR", _R),
        "MALERKOTLA": ("SANGRUR", _P),
        "PATHANKOT": ("GURDASPUR", _P),
        "SRI MUKTSAR SAHIB": ("MUKTSAR", _R),
        "SHAHID BHAGAT SINGH NAGAR": ("NAWANSHAHR", _R),
        "SAHIBZADA AJIT SINGH NAGAR": ("SAS NAGAR", _R),
        "MOHALI": ("SAS NAGAR", _R),
    },
    "RAJASTHAN": {"GANGANAGAR": ("SRI GANGANAGA", _R), "SRI GANGANAGAR": ("SRI GANGANAGA", _R)},
    "SIKKIM": {
        "EAST": ("EAST SIKKIM", _R),
        "NORTH": ("NORTH SIKKIM", _R),
        "SOUTH": ("SOUTH SIKKIM", _R),
        "WEST": ("WEST SIKKIM", _R),
        "PAKYONG": ("EAST SIKKIM", _P),
        "SORENG": ("WEST SIKKIM", _P),
        "GANGTOK": ("EAST SIKKIM", _R),
        "MANGAN": ("NORTH SIKKIM", _R),
        "NAMCHI": ("SOUTH SIKKIM", _R),
        "GYALSHING": ("WEST SIKKIM", _R),
    },
    "TAMIL NADU": {
        "CHENGALPATTU": ("KANCHIPURAM", _P),
        "KALLAKURICHI": ("VILUPPURAM", _P),
        "KANNIYAKUMARI": ("KANYAKUMARI", _R),
        "MAYILADUTHURAI": ("NAGAPATTINAM", _P),
        "RANIPET": ("VELLORE", _P),
        "TENKASI": ("TIRUNELVELI", _P),
        "NILGIRIS": ("NILGIRIS", _R),
        "THIRUVALLUR": ("TIRUVALLUR", _R),
        "TIRUPPUR": ("TIRUPUR", _R),
        "TUTICORIN": ("THOOTHUKUDI", _R),
        "TIRUPATHUR": ("VELLORE", _P),
        "VILLUPURAM": ("VILUPPURAM", _R),
        "THIRUVARUR": ("TIRUVARUR", _R),
    },
    "TRIPURA": {
        "GOMATI": ("SOUTH TRIPURA", _P),
        "KHOWAI": ("WEST TRIPURA", _P),
        "SEPAHIJALA": ("WEST TRIPURA", _P),
        "UNAKOTI": ("NORTH TRIPURA", _P),
    },
    "UTTAR PRADESH": {
        "AMROHA": ("JYOTIBA PHULE", _R),
        "JYOTIBA PHULE NAGAR": ("JYOTIBA PHULE", _R),
        "AYODHYA": ("FAIZABAD", _R),
        "AMETHI": ("SAHUJI MAHARA", _R),
        "BAGHPAT": ("BAGPAT", _R),
        "BHADOHI": ("SANT RAVIDAS", _R),
        "SANT RAVIDAS NAGAR": ("SANT RAVIDAS", _R),
        "BUDAUN": ("BADAUN", _R),
        "BULANDSHAHR": ("BULANDSHAHAR", _R),
        "CHITRAKOOT": ("BANDA", _P),
        "HAPUR": ("GHAZIABAD", _P),
        "HATHRAS": ("MAHAMAYA NAGA", _R),
        "KASGANJ": ("KANSHIRAM NAG", _R),
        "PRAYAGRAJ": ("ALLAHABAD", _R),
        "SAMBHAL": ("MORADABAD", _P),
        "SANT KABEER NAGAR": ("SANT KABIR NGR", _R),
        "SANT KABIR NAGAR": ("SANT KABIR NGR", _R),
        "SHAMLI": ("MUZAFFARNAGAR", _P),
        "SIDDHARTH NAGAR": ("SIDDHARTH NGR", _R),
        "SHRAVASTI": ("SHRAVASTI NGR", _R),
        "KHERI": ("KHERI LAKHIMP", _R),
        "LAKHIMPUR KHERI": ("KHERI LAKHIMP", _R),
    },
    "UTTARANCHAL": {
        "PAURI GARHWAL": ("GARHWAL PAURI", _R),
        "TEHRI GARHWAL": ("GARHWAL TEHRI", _R),
        "UDAM SINGH NAGAR": ("UDHAM SINGH N", _R),
        "UDHAM SINGH NAGAR": ("UDHAM SINGH N", _R),
    },
    "WEST BENGAL": {
        "24 PARAGANAS NORTH": ("NORTH 24 PARG", _R),
        "24 PARAGANAS SOUTH": ("SOUTH 24 PARG", _R),
        "NORTH 24 PARGANAS": ("NORTH 24 PARG", _R),
        "SOUTH 24 PARGANAS": ("SOUTH 24 PARG", _R),
        "ALIPURDUAR": ("JALPAIGURI", _P),
        "DINAJPUR DAKSHIN": ("SOUTH DINAJPUR", _R),
        "DINAJPUR UTTAR": ("NORTH DINAJPUR", _R),
        "JHARGRAM": ("WEST MIDNAPOR", _P),
        "KALIMPONG": ("DARJEELING", _P),
        "MALDAH": ("MALDA", _R),
        "MEDINIPUR EAST": ("EAST MIDNAPOR", _R),
        "MEDINIPUR WEST": ("WEST MIDNAPOR", _R),
        "PURBA MEDINIPUR": ("EAST MIDNAPOR", _R),
        "PASCHIM MEDINIPUR": ("WEST MIDNAPOR", _R),
        "PASCHIM BARDHAMAN": ("BURDWAN", _P),
        "PURBA BARDHAMAN": ("BURDWAN", _P),
    },
    "DADAR NAGAR HAVELI": {"DADRA AND NAGAR HAVELI": ("DNH", _R)},
}

MATCH_KINDS = (
    "exact",
    "normalised",
    "renamed",
    "parent",
    "prefix",
    "fuzzy",
    "nearest_district",
    "state_mean",
)
FUZZY_CUTOFF = 0.85
_EARTH_RADIUS_KM = 6371.0088


def normalise_name(name: str | None) -> str:
    """Canonical spelling for matching: ASCII upper case, no punctuation or parentheses.

    "&" becomes "AND"; text in parentheses (closed or truncated) is dropped; the words
    DISTRICT/DIST and a leading THE are dropped; spaced initials are joined
    ("S.A.S Nagar" → "SAS NAGAR").
    """
    if not name:
        return ""
    s = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").upper()
    s = re.sub(r"\([^)]*\)", " ", s)
    s = re.sub(r"\(.*$", " ", s)
    s = s.replace("&", " AND ")
    s = re.sub(r"[^A-Z0-9]+", " ", s)
    tokens = [t for t in s.split() if t not in ("DISTRICT", "DIST", "DISTT")]
    if tokens and tokens[0] == "THE":
        tokens = tokens[1:]
    out: list[str] = []
    prev_single = False
    for t in tokens:  # join runs of single letters: S A S -> SAS
        single = len(t) == 1 and t.isalpha()
        if single and prev_single:
            out[-1] += t
        else:
            out.append(t)
        prev_single = single and (prev_single or len(out[-1]) == 1) if single else False
    return " ".join(out)


def normalise_state(state: str | None) -> str:
    """Normalised state name (same rules as :func:`normalise_name`)."""
    return normalise_name(state)


@dataclass(frozen=True, slots=True)
class ClimateSite:
    """Where a target's climate comes from.

    ``normals_mm``: the 12 monthly rainfall normals (mm, January first) used as the level of
    the monthly model. ``distance_km`` is the great-circle distance from the query point to
    the centroid of the district whose normals are used (None without coordinates or for a
    state mean).
    """

    query_district: str | None
    query_state: str | None
    latitude: float | None
    longitude: float | None
    normals_state: str  # state key of the normals file
    normals_district: str | None  # normals district name (source spelling); None = state mean
    subdivision: str
    match_kind: str  # one of MATCH_KINDS
    normals_mm: tuple[float, ...]
    distance_km: float | None


@dataclass(frozen=True, eq=False)
class _District:
    state_key: str
    name: str  # source spelling
    key: str  # normalised
    normals: tuple[float, ...]
    subdivision: str


@dataclass(eq=False)
class Gazetteer:
    """Lookup tables built once per :class:`ClimateData` (see :func:`gazetteer`)."""

    districts: dict[str, dict[str, _District]]  # state key → normalised name → district
    centroids: dict[tuple[str, str], tuple[float, float]]  # (state key, key) → (lat, lon)

    def state_keys(self, state: str | None) -> tuple[str, ...]:
        s = normalise_state(state)
        if not s:
            return ()
        if s in STATE_ALIASES:
            return STATE_ALIASES[s]
        return (s,) if s in self.districts else ()


def subdivision_of(state_key: str, district_key: str) -> str:
    """IMD subdivision of a normals-file district (normalised state key and name)."""
    if state_key in SUBDIVISION_SPLITS:
        for sub, names in SUBDIVISION_SPLITS[state_key].items():
            if district_key in names:
                return sub
        raise KeyError(f"district {district_key!r} of split state {state_key!r} has no subdivision")
    try:
        return SUBDIVISION_BY_STATE[state_key]
    except KeyError:
        raise KeyError(f"state {state_key!r} has no subdivision") from None


def _match_in_state(gaz: Gazetteer, state_key: str, name: str) -> tuple[_District, str] | None:
    table = gaz.districts.get(state_key, {})
    if not table or not name:
        return None
    raw = name.strip().upper()
    for d in table.values():
        if d.name.upper() == raw:
            return d, "exact"
    key = normalise_name(name)
    if key in table:
        return table[key], "normalised"
    compact = key.replace(" ", "")
    hits = [d for k, d in table.items() if k.replace(" ", "") == compact]
    if len(hits) == 1:
        return hits[0], "normalised"
    alias = DISTRICT_ALIASES.get(state_key, {}).get(key)
    if alias is not None and alias[0] in table:
        return table[alias[0]], alias[1]
    if len(key) >= 5:
        hits = [d for k, d in table.items() if len(k) >= 5 and (k.startswith(key) or key.startswith(k))]
        if len(hits) == 1:
            return hits[0], "prefix"
    scored = sorted(
        ((difflib.SequenceMatcher(None, compact, k.replace(" ", "")).ratio(), k) for k in table),
        reverse=True,
    )
    if scored and scored[0][0] >= FUZZY_CUTOFF and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return table[scored[0][1]], "fuzzy"
    return None


def _match(gaz: Gazetteer, district: str | None, state: str | None) -> tuple[_District, str] | None:
    for sk in gaz.state_keys(state):
        hit = _match_in_state(gaz, sk, district or "")
        if hit is not None:
            return hit
    return None


def haversine_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km (arrays broadcast); inputs in decimal degrees."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(np.asarray(lon2) - np.asarray(lon1))
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * _EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


_GAZETTEERS: dict[str, Gazetteer] = {}


def gazetteer(climate: ClimateData) -> Gazetteer:
    """Build (once per data hash) the district tables and district centroids.

    A normals district's centroid is the median latitude/longitude of the pin codes that
    resolve to it by name (kinds exact … fuzzy, including carved-out ``parent`` districts,
    whose pin codes lie inside the 2000s district).
    """
    cached = _GAZETTEERS.get(climate.data_hash)
    if cached is not None:
        return cached
    districts: dict[str, dict[str, _District]] = {}
    for dn in climate.district_normals:
        sk = normalise_state(dn.state)
        key = normalise_name(dn.district)
        districts.setdefault(sk, {})[key] = _District(
            sk, dn.district, key, tuple(float(v) for v in dn.normals_mm), subdivision_of(sk, key)
        )
    gaz = Gazetteer(districts=districts, centroids={})
    pts: dict[tuple[str, str], list[tuple[float, float]]] = {}
    memo: dict[tuple[str, str], tuple[_District, str] | None] = {}
    for pc in climate.pincodes:
        if pc.latitude is None or pc.longitude is None or not pc.district:
            continue
        k = (pc.district, pc.state)
        if k not in memo:
            memo[k] = _match(gaz, pc.district, pc.state)
        hit = memo[k]
        if hit is not None:
            pts.setdefault((hit[0].state_key, hit[0].key), []).append((pc.latitude, pc.longitude))
    gaz.centroids = {k: (median(p[0] for p in v), median(p[1] for p in v)) for k, v in pts.items()}
    _GAZETTEERS[climate.data_hash] = gaz
    return gaz


def _site(q_d, q_s, lat, lon, d: _District, kind: str, dist: float | None) -> ClimateSite:
    return ClimateSite(q_d, q_s, lat, lon, d.state_key, d.name, d.subdivision, kind, d.normals, dist)


def climate_site(
    climate: ClimateData,
    district: str | None,
    state: str | None,
    lat: float | None = None,
    lon: float | None = None,
) -> ClimateSite:
    """Resolve a place to district normals (mm) and an IMD subdivision.

    ``lat``/``lon`` in decimal degrees (optional; needed for the nearest-district fallback).
    Raises LookupError only when neither the district, the state nor coordinates resolve.
    """
    gaz = gazetteer(climate)
    hit = _match(gaz, district, state)
    has_xy = lat is not None and lon is not None and not (math.isnan(lat) or math.isnan(lon))
    if hit is not None:
        d, kind = hit
        c = gaz.centroids.get((d.state_key, d.key))
        dist = float(haversine_km(lat, lon, c[0], c[1])) if (has_xy and c) else None
        return _site(district, state, lat, lon, d, kind, dist)
    states = gaz.state_keys(state)
    if has_xy:
        cands = [k for k in gaz.centroids if not states or k[0] in states] or list(gaz.centroids)
        la = np.array([gaz.centroids[k][0] for k in cands])
        lo = np.array([gaz.centroids[k][1] for k in cands])
        dist = haversine_km(lat, lon, la, lo)
        i = int(np.argmin(dist))
        d = gaz.districts[cands[i][0]][cands[i][1]]
        return _site(district, state, lat, lon, d, "nearest_district", float(dist[i]))
    if states:
        members = [d for sk in states for d in gaz.districts.get(sk, {}).values()]
        normals = tuple(float(np.mean([d.normals[m] for d in members])) for m in range(12))
        subs = [d.subdivision for d in members]
        sub = max(sorted(set(subs)), key=subs.count)
        return ClimateSite(district, state, lat, lon, states[0], None, sub, "state_mean", normals, None)
    raise LookupError(f"cannot resolve district={district!r} state={state!r} without coordinates")


def pincode_site(climate: ClimateData, pincode: str) -> ClimateSite:
    """:func:`climate_site` for a 6-digit pin code of the centroids file (KeyError if unknown)."""
    pc = _pincode_index(climate).get(str(pincode).strip())
    if pc is None:
        raise KeyError(f"unknown pin code {pincode!r}")
    return climate_site(climate, pc.district or None, pc.state or None, pc.latitude, pc.longitude)


_PINCODES: dict[str, dict] = {}


def _pincode_index(climate: ClimateData) -> dict:
    idx = _PINCODES.get(climate.data_hash)
    if idx is None:
        idx = _PINCODES[climate.data_hash] = {p.pincode: p for p in climate.pincodes}
    return idx
