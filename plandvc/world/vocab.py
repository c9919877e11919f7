"""Curated vocabularies shared by the domains: people, places, streets, words for descriptions.

Plain tuples of real-sounding words (no real brands), so generated data reads like a real site's while staying
a pure function of the seed.
"""

from __future__ import annotations

FIRST = (
    "Ada", "Bruno", "Chiara", "Dmitri", "Elena", "Farah", "Gustav", "Hana", "Ines", "Jonas", "Keiko", "Liam",
    "Maya", "Nikolai", "Olivia", "Pedro", "Quinn", "Rosa", "Samir", "Tessa", "Umar", "Vera", "Wen", "Yusuf",
    "Zara", "Amara", "Camille", "Diego", "Esther", "Felix", "Greta", "Hugo", "Ivy", "Jalen", "Kira", "Lucia",
    "Mateo", "Nadia", "Oscar", "Priya", "Ravi", "Sofia", "Tomas", "Aisha", "Ben", "Clara", "David", "Emma",
)  # fmt: skip
LAST = (
    "Byrne", "Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Silva", "Kowalski", "Brennan",
    "Achebe", "Fischer", "Rossi", "Nguyen", "Patel", "Larsen", "Duarte", "Mbeki", "Sato", "Quigley", "Ortega",
    "Varga", "Whitfield", "Yilmaz", "Zhou", "Adeyemi", "Castillo", "Devlin", "Eriksen", "Foster", "Garcia",
    "Hoffmann", "Ibrahim", "Jensen", "Kim", "Lopez", "Meyer", "Nakamura", "O'Neill", "Park", "Reyes", "Schmidt",
)  # fmt: skip
CITIES = (
    "Leeds", "Porto", "Lyon", "Gdansk", "Utrecht", "Bergen", "Bilbao", "Graz", "Tampere", "Cork", "Turin",
    "Valencia", "Krakow", "Ghent", "Aarhus", "Brno", "Seville", "Nantes", "Malmo", "Bologna", "Split",
    "Lisbon", "Vienna", "Dublin", "Oslo", "Zurich", "Prague", "Athens", "Riga", "Tallinn", "Kyoto", "Osaka",
    "Austin", "Denver", "Portland", "Toronto", "Montreal", "Melbourne", "Auckland", "Cape Town", "Nairobi",
)  # fmt: skip
STREETS = (
    "Harbour Road", "Mill Lane", "Station Street", "Kings Avenue", "Elm Grove", "Canal Walk", "Market Square",
    "Orchard Way", "Bridge Street", "Park Terrace", "Church Lane", "High Street", "Riverside Drive",
    "Castle Hill", "Queens Parade", "Linden Close", "Maple Crescent", "Victoria Quay",
)  # fmt: skip
COUNTRIES = ("Portugal", "France", "Poland", "Netherlands", "Norway", "Spain", "Austria", "Finland", "Ireland",
             "Italy", "Denmark", "Czechia", "Sweden", "Greece", "Japan", "Canada", "Australia", "Kenya")  # fmt: skip
ADJ = (
    "Classic", "Rustic", "Smoky", "Golden", "Crispy", "Spicy", "Creamy", "Zesty", "Hearty", "Tangy",
    "Roasted", "Herbed", "Honey", "Garlic", "Lemon", "Summer", "Winter", "Midnight", "Coastal", "Alpine",
)  # fmt: skip
COLOURS = ("Black", "White", "Silver", "Navy", "Red", "Green", "Sand", "Graphite", "Teal", "Rose")
TOPICS = (
    "graph neural networks", "protein folding", "sparse attention", "dark matter halos", "soil microbiomes",
    "quantum error correction", "urban heat islands", "language acquisition", "coral bleaching",
    "battery degradation", "federated learning", "exoplanet atmospheres", "wildfire spread", "gene regulation",
    "reinforcement learning", "supply chain resilience", "ocean acidification", "speech recognition",
    "traffic forecasting", "antibiotic resistance", "solar cell efficiency", "galaxy mergers",
)  # fmt: skip
GOOD = ("Reliable", "Light", "Fast", "Quiet", "Compact", "Durable", "Clever", "Bright", "Smooth", "Sturdy")
