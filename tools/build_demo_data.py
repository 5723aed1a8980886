"""Writes the demo's documents and typed test set (``rag_eval_adapters/demo/data/*.jsonl``), deterministically.

A development tool, not part of the package (the wheel ships only the data files it writes): run
``python tools/build_demo_data.py`` from the repository to regenerate them.  The text was
written for this project: eight topics (one document each), six subjects per topic (one paragraph each),
five short passages per subject, and 72 questions typed by hand (literal, paraphrase, scenario), each
with a hand-written reference answer and, as evidence, the passage that answers it: quoted verbatim and
located in its document as a character span.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "rag_eval_adapters" / "demo" / "data"

# topic -> subject -> five passages
PASSAGES: dict[str, dict[str, list[str]]] = {
    "astronomy": {
        "mars": [
            "Mars is the fourth planet from the Sun. Iron oxide dust on its surface gives it the reddish colour that earned it the nickname the Red Planet.",
            "Olympus Mons on Mars is the tallest known volcano in the solar system, rising about 22 kilometres above the surrounding plains.",
            "Mars has two small, irregular moons, Phobos and Deimos, which may be asteroids captured by the planet's gravity long ago.",
            "A day on Mars, called a sol, lasts about 24 hours and 40 minutes, while a Martian year lasts 687 Earth days.",
            "Rovers such as Curiosity and Perseverance have found dry river beds and lake sediments, evidence that liquid water once flowed on Mars.",
        ],
        "jupiter": [
            "Jupiter is the largest planet in the solar system; more than a thousand Earths could fit inside it.",
            "The Great Red Spot on Jupiter is a giant storm, wider than Earth, that has been observed for more than 300 years.",
            "Jupiter is a gas giant made mostly of hydrogen and helium, with no solid surface to stand on.",
            "Galileo discovered the four largest moons of Jupiter in 1610: Io, Europa, Ganymede and Callisto.",
            "Jupiter spins faster than any other planet, completing a rotation in just under ten hours, which flattens it at the poles.",
        ],
        "moon": [
            "The Moon is Earth's only natural satellite and orbits the planet about once every 27 days.",
            "Tides in Earth's oceans are caused mainly by the gravitational pull of the Moon on the water.",
            "Because the Moon is tidally locked, the same side always faces Earth and the far side was unseen until spacecraft photographed it.",
            "The dark patches visible on the Moon are maria, wide plains of ancient basaltic lava.",
            "Most scientists think the Moon formed from debris thrown out when a Mars-sized body collided with the young Earth.",
        ],
        "sun": [
            "The Sun is a star made mostly of hydrogen, which it fuses into helium in its core, releasing enormous energy.",
            "Light from the Sun takes about eight minutes and twenty seconds to travel the distance to Earth.",
            "Sunspots are cooler, darker regions on the Sun's surface caused by intense magnetic activity.",
            "The solar wind is a stream of charged particles flowing from the Sun; when it reaches Earth it can produce auroras near the poles.",
            "In about five billion years the Sun will swell into a red giant and later shrink into a white dwarf.",
        ],
        "comets": [
            "Comets are icy bodies of frozen gas, rock and dust, often described as dirty snowballs.",
            "When a comet approaches the Sun its ice turns to gas, forming a glowing coma and a tail that always points away from the Sun.",
            "Halley's Comet returns to the inner solar system roughly every 76 years and was last seen from Earth in 1986.",
            "Many long-period comets are thought to come from the Oort Cloud, a distant shell of icy objects surrounding the solar system.",
            "Meteor showers happen when Earth passes through the trail of dust left behind by a comet.",
        ],
        "black_holes": [
            "A black hole is a region of space where gravity is so strong that nothing, not even light, can escape.",
            "Stellar black holes form when a very massive star collapses at the end of its life, often after a supernova explosion.",
            "The boundary around a black hole beyond which escape is impossible is called the event horizon.",
            "A supermassive black hole called Sagittarius A* sits at the centre of the Milky Way galaxy.",
            "In 2019 the Event Horizon Telescope released the first image of a black hole's shadow, in the galaxy M87.",
        ],
    },
    "cooking": {
        "bread": [
            "Yeast makes bread rise by fermenting sugars and releasing carbon dioxide gas, which is trapped by the gluten in the dough.",
            "Kneading dough develops gluten, the elastic network of proteins that gives bread its chewy structure.",
            "Sourdough bread is leavened with a starter, a culture of wild yeast and lactic acid bacteria that adds a tangy flavour.",
            "Bread is baked when its internal temperature reaches about 90 to 95 degrees Celsius and the loaf sounds hollow when tapped.",
            "Stale bread is not simply dry: its starch recrystallises over time, which is why briefly reheating a loaf can soften it again.",
        ],
        "rice": [
            "Rinsing rice before cooking removes surface starch, which helps the grains stay separate instead of sticky.",
            "The absorption method cooks rice in a measured amount of water, about one and a half cups of water per cup of long-grain rice.",
            "Risotto uses short-grain rice such as arborio, stirred slowly with hot stock so the grains release starch and turn creamy.",
            "Cooked rice left at room temperature can grow Bacillus cereus bacteria, so leftovers should be cooled quickly and refrigerated.",
            "Brown rice keeps its bran layer, so it has more fibre than white rice and takes longer to cook.",
        ],
        "pasta": [
            "Pasta should be boiled in plenty of well-salted water and stirred early so the pieces do not stick together.",
            "Al dente means pasta cooked until it is still slightly firm to the bite, usually a minute or two less than the packet time.",
            "A splash of starchy pasta cooking water helps a sauce cling to the noodles and become glossy.",
            "Fresh egg pasta is made from flour and eggs rolled into thin sheets and cooks in only two or three minutes.",
            "Durum wheat semolina gives dried pasta its golden colour and firm texture.",
        ],
        "coffee": [
            "Coffee beans are the roasted seeds of the coffee cherry; the two main species are arabica and robusta.",
            "Espresso is made by forcing hot water through finely ground coffee under high pressure, producing a small concentrated shot topped with crema.",
            "Light roasts keep more of a coffee's fruity acidity, while dark roasts taste more bitter and smoky.",
            "Water just off the boil, around 90 to 96 degrees Celsius, is recommended for brewing coffee with a pour-over or French press.",
            "Caffeine is a natural stimulant in coffee that blocks adenosine receptors in the brain and makes people feel more alert.",
        ],
        "cheese": [
            "Cheese is made by curdling milk with rennet or acid, separating the solid curds from the liquid whey.",
            "Hard cheeses such as parmesan are aged for months or years, which concentrates their flavour and lowers their moisture.",
            "The blue veins in cheeses like Roquefort and Stilton come from Penicillium mould spores added to the curd.",
            "Mozzarella is a fresh stretched-curd cheese, traditionally made from water buffalo milk in southern Italy.",
            "The holes in Swiss cheese such as Emmental are formed by carbon dioxide bubbles released by bacteria during ripening.",
        ],
        "chocolate": [
            "Chocolate is made from cacao beans that are fermented, dried, roasted and ground into cocoa mass.",
            "Tempering chocolate means heating and cooling it to precise temperatures so it sets with a glossy snap.",
            "Dark chocolate contains more cocoa solids and less sugar than milk chocolate, which also contains milk powder.",
            "White chocolate contains cocoa butter, sugar and milk but no cocoa solids, which is why it is pale.",
            "Chocolate melts easily in a bowl set over simmering water, but a drop of water can make it seize into a grainy paste.",
        ],
    },
    "gardening": {
        "tomatoes": [
            "Tomato plants need at least six to eight hours of direct sunlight a day to produce a good crop of fruit.",
            "Blossom end rot, a dark sunken patch at the base of tomato fruit, is caused by calcium deficiency, often from uneven watering.",
            "Indeterminate tomato varieties keep growing all season and need tall stakes or cages for support.",
            "Pinching out the side shoots, or suckers, of cordon tomatoes directs the plant's energy into fruit.",
            "Tomato seeds are usually sown indoors six to eight weeks before the last spring frost and planted out when nights are warm.",
        ],
        "roses": [
            "Roses are pruned in late winter or early spring, cutting just above an outward-facing bud to open the centre of the bush.",
            "Black spot is a fungal disease of roses that causes dark spots on leaves; removing fallen leaves helps prevent it.",
            "Deadheading roses, removing spent flowers, encourages many varieties to bloom again.",
            "Climbing roses are trained along horizontal wires so that they produce more flowering side shoots.",
            "Roses grow best in rich, well-drained soil and benefit from a thick mulch of compost around their roots.",
        ],
        "composting": [
            "A compost heap needs a balance of green materials rich in nitrogen, like grass clippings, and brown materials rich in carbon, like dry leaves.",
            "Turning a compost pile adds oxygen, which speeds up decomposition by aerobic microbes and reduces bad smells.",
            "Meat, dairy and oily food should be kept out of a home compost bin because they attract rats and decompose slowly.",
            "Finished compost is dark and crumbly and smells earthy; it usually takes six months to two years to make.",
            "Worm composting, or vermicomposting, uses red wiggler worms to turn kitchen scraps into rich castings.",
        ],
        "lawn": [
            "Lawns should be watered deeply but infrequently, which encourages grass roots to grow down into the soil.",
            "Mowing too short stresses grass; removing no more than one third of the blade height at a time keeps a lawn healthy.",
            "Aerating a compacted lawn by pulling out small plugs of soil lets air, water and nutrients reach the roots.",
            "Moss in a lawn usually points to shade, poor drainage or acidic soil rather than to a lack of grass seed.",
            "Autumn is the best season to sow grass seed in temperate climates, when the soil is warm and rain is regular.",
        ],
        "herbs": [
            "Basil is a tender annual herb that dislikes cold; pinching off its flower buds keeps the leaves coming.",
            "Mint spreads aggressively through underground runners, so many gardeners grow it in a pot.",
            "Mediterranean herbs such as rosemary, thyme and sage prefer poor, free-draining soil and full sun.",
            "Herbs taste strongest when harvested in the morning, after the dew has dried but before the heat of the day.",
            "Parsley is a biennial: it grows leaves in its first year and flowers and sets seed in its second.",
        ],
        "fruit_trees": [
            "Apple trees are pruned in winter while dormant, removing dead, crossing and inward-growing branches.",
            "Many apple and pear varieties need a different variety flowering at the same time nearby to pollinate them.",
            "Grafting joins a cutting of a chosen fruit variety onto a rootstock that controls the size of the tree.",
            "Thinning young fruit in early summer gives the remaining fruit room to grow larger and stops branches breaking.",
            "Bare-root fruit trees are planted in late autumn or winter, when they are dormant and the ground is not frozen.",
        ],
    },
    "computing": {
        "python": [
            "Python is a high-level programming language known for readable code, using indentation rather than braces to define blocks.",
            "A Python virtual environment isolates a project's installed packages from the system interpreter and from other projects.",
            "List comprehensions in Python build a new list from an iterable in a single expression, such as squares of numbers.",
            "Python's global interpreter lock lets only one thread execute Python bytecode at a time, which limits CPU-bound threading.",
            "The pip tool installs Python packages from the Python Package Index along with their dependencies.",
        ],
        "databases": [
            "A relational database stores data in tables of rows and columns and is queried with SQL.",
            "An index on a database column speeds up lookups, at the cost of extra storage and slower writes.",
            "ACID transactions guarantee atomicity, consistency, isolation and durability, so a failed transaction leaves no partial changes.",
            "Normalisation organises database tables to reduce duplicated data, for example by moving repeated addresses into their own table.",
            "NoSQL databases such as document stores and key-value stores trade fixed schemas for flexible data models and horizontal scaling.",
        ],
        "encryption": [
            "Symmetric encryption uses the same secret key to encrypt and decrypt data; AES is the most widely used symmetric cipher.",
            "Public-key cryptography uses a key pair: anyone can encrypt with the public key, but only the private key can decrypt.",
            "HTTPS protects web traffic with TLS, which authenticates the server with a certificate and encrypts the connection.",
            "Passwords should be stored as salted hashes produced by a slow function such as bcrypt or Argon2, never in plain text.",
            "End-to-end encryption means only the communicating users can read the messages, not the service that relays them.",
        ],
        "compilers": [
            "A compiler translates source code written in a high-level language into machine code before the program runs.",
            "An interpreter executes a program statement by statement instead of producing a separate executable first.",
            "The first stage of a compiler, the lexer, breaks source text into tokens such as keywords, names and numbers.",
            "Just-in-time compilers translate code to machine instructions while the program runs, using information about how it is used.",
            "Compiler optimisations such as inlining and loop unrolling make programs faster without changing what they compute.",
        ],
        "networks": [
            "TCP provides reliable, ordered delivery of data between applications, retransmitting lost packets and controlling congestion.",
            "An IP address identifies a device on a network; IPv4 addresses have 32 bits and IPv6 addresses 128 bits.",
            "DNS, the domain name system, translates human-readable domain names into the IP addresses computers use.",
            "UDP sends datagrams without setting up a connection or guaranteeing delivery, which suits video calls and online games.",
            "A router forwards packets between networks, choosing a path for each packet based on its destination address.",
        ],
        "version_control": [
            "Git is a distributed version control system: every clone holds the full history of the project.",
            "A Git branch is a movable pointer to a commit, letting developers work on features in isolation.",
            "A merge conflict happens when two branches change the same lines of a file and Git cannot combine them automatically.",
            "A commit records a snapshot of the project together with a message explaining what changed and why.",
            "Pull requests let a team review proposed changes and discuss them before they are merged into the main branch.",
        ],
    },
    "health": {
        "sleep": [
            "Most adults need seven to nine hours of sleep a night for good health and concentration.",
            "Sleep runs in cycles of about ninety minutes, alternating between deep non-REM sleep and REM sleep, when most vivid dreaming happens.",
            "Blue light from phone and computer screens in the evening can delay the release of melatonin and make it harder to fall asleep.",
            "Keeping a regular bedtime and wake-up time, even at weekends, helps set the body's internal clock.",
            "Chronic lack of sleep is linked to weakened immunity, weight gain and a higher risk of heart disease.",
        ],
        "hydration": [
            "Thirst, dark yellow urine, headache and tiredness are common early signs of dehydration.",
            "Water needs vary with body size, activity and climate; many adults need around two to three litres of fluid a day, including from food.",
            "During long endurance exercise, sports drinks replace sodium and other electrolytes lost in sweat.",
            "Drinking very large amounts of water in a short time can dilute blood sodium, a dangerous condition called hyponatraemia.",
            "Older adults are at greater risk of dehydration because the sense of thirst weakens with age.",
        ],
        "vitamin_d": [
            "The skin makes vitamin D when exposed to ultraviolet B light from the sun.",
            "Vitamin D helps the body absorb calcium from food, which is essential for strong bones and teeth.",
            "Severe vitamin D deficiency in children causes rickets, a softening of the bones that can lead to bowed legs.",
            "Oily fish such as salmon and mackerel, egg yolks and fortified foods are dietary sources of vitamin D.",
            "People living far from the equator may need vitamin D supplements in winter, when sunlight is too weak for the skin to make enough.",
        ],
        "exercise": [
            "Health guidelines recommend at least 150 minutes of moderate aerobic activity, such as brisk walking, every week.",
            "Strength training two or more days a week builds muscle and helps maintain bone density with age.",
            "Regular physical activity lowers blood pressure and reduces the risk of type 2 diabetes and heart disease.",
            "Warming up before exercise raises muscle temperature and heart rate gradually, which may reduce the risk of injury.",
            "Exercise releases endorphins and can ease symptoms of anxiety and mild depression.",
        ],
        "vaccines": [
            "Vaccines train the immune system to recognise a pathogen by exposing it to a harmless piece or weakened form of the germ.",
            "Herd immunity occurs when enough people in a community are immune that an infection can no longer spread easily.",
            "Edward Jenner developed the first vaccine in 1796, using cowpox to protect against smallpox.",
            "mRNA vaccines give cells instructions to make a harmless viral protein, which prompts an immune response.",
            "Booster doses are given because protection from some vaccines fades over time.",
        ],
        "dental_care": [
            "Brushing teeth twice a day with fluoride toothpaste helps prevent tooth decay by strengthening enamel.",
            "Plaque is a sticky film of bacteria that forms on teeth; if not removed it hardens into tartar.",
            "Flossing or using interdental brushes cleans between teeth where a toothbrush cannot reach.",
            "Sugary drinks and snacks feed mouth bacteria that produce acids which dissolve tooth enamel and cause cavities.",
            "Bleeding gums are often an early sign of gum disease, called gingivitis, which can be reversed with good cleaning.",
        ],
    },
    "history": {
        "printing_press": [
            "Johannes Gutenberg built a printing press with movable metal type in Mainz around 1440.",
            "The Gutenberg Bible, printed in the 1450s, was the first major book produced in Europe with movable type.",
            "The printing press made books far cheaper and helped spread literacy across Europe.",
            "Printed pamphlets allowed the ideas of the Protestant Reformation to spread quickly after 1517.",
            "Movable type had been invented earlier in China, where Bi Sheng made characters from baked clay around 1040.",
        ],
        "roman_roads": [
            "The Romans built more than 80,000 kilometres of paved roads to move armies and goods across their empire.",
            "Roman roads were built in layers of stone and gravel, with a cambered surface so rainwater drained to the sides.",
            "The Appian Way, begun in 312 BC, linked Rome to southern Italy and was one of the earliest Roman roads.",
            "Milestones placed along Roman roads told travellers the distance to the nearest towns.",
            "Many modern European roads still follow the straight routes laid out by Roman engineers.",
        ],
        "silk_road": [
            "The Silk Road was a network of trade routes linking China with Central Asia, the Middle East and the Mediterranean.",
            "Silk, spices, paper and porcelain travelled west along the Silk Road, while horses, glass and silver moved east.",
            "Ideas and religions, including Buddhism, spread along the Silk Road together with goods.",
            "The Venetian merchant Marco Polo travelled along the Silk Road to the court of Kublai Khan in the thirteenth century.",
            "Caravanserais were roadside inns where Silk Road merchants and their camels could rest and trade.",
        ],
        "steam_engine": [
            "James Watt improved the steam engine in the 1760s by adding a separate condenser, which greatly reduced wasted fuel.",
            "Steam engines powered factories, mines and mills, driving the Industrial Revolution in Britain.",
            "Thomas Newcomen's atmospheric engine of 1712 was used to pump water out of coal mines.",
            "George Stephenson's locomotive Rocket won the Rainhill Trials in 1829 and shaped early railway design.",
            "Steamships replaced sailing ships on many routes in the nineteenth century because they did not depend on the wind.",
        ],
        "telephone": [
            "Alexander Graham Bell received a patent for the telephone in 1876.",
            "The first words spoken on Bell's telephone were reportedly a request to his assistant, Thomas Watson, to come to him.",
            "Early telephone calls were connected by switchboard operators who plugged cables into sockets by hand.",
            "The first transatlantic telephone cable, TAT-1, began carrying calls between Britain and North America in 1956.",
            "Mobile phones became widespread in the 1990s, and smartphones combined calls with internet access in the 2000s.",
        ],
        "moon_landing": [
            "On 20 July 1969 Apollo 11 landed on the Moon, and Neil Armstrong became the first person to walk on its surface.",
            "Buzz Aldrin joined Armstrong on the lunar surface while Michael Collins orbited above in the command module.",
            "The Saturn V rocket that launched the Apollo missions remains one of the most powerful rockets ever flown.",
            "Twelve astronauts walked on the Moon during six Apollo landings between 1969 and 1972.",
            "The Apollo astronauts brought back 382 kilograms of lunar rock and soil for scientists to study.",
        ],
    },
    "earth": {
        "volcanoes": [
            "Volcanoes form where molten rock called magma rises through the crust, often at the boundaries of tectonic plates.",
            "The eruption of Mount Vesuvius in 79 AD buried the Roman towns of Pompeii and Herculaneum under ash.",
            "Shield volcanoes such as those of Hawaii have gentle slopes built from runny lava flows.",
            "The Pacific Ring of Fire is a horseshoe-shaped belt of volcanoes and earthquakes around the Pacific Ocean.",
            "Large eruptions can cool the global climate for a year or more by injecting sulphur dioxide high into the atmosphere.",
        ],
        "glaciers": [
            "A glacier is a slowly moving mass of ice formed from snow compacted over many years.",
            "Glaciers carve U-shaped valleys and leave behind ridges of rock debris called moraines.",
            "Most glaciers around the world are retreating as global temperatures rise.",
            "The Antarctic ice sheet holds about 90 percent of the ice on Earth.",
            "Icebergs break off, or calve, from glaciers where they reach the sea.",
        ],
        "rivers": [
            "The Amazon carries more water than any other river, discharging about a fifth of all river water that reaches the oceans.",
            "The Nile, flowing north through eastern Africa into the Mediterranean, is usually listed as the longest river in the world.",
            "A river delta forms where a river slows as it enters the sea and drops its sediment in a fan of channels.",
            "Meandering rivers wind in loops; when a loop is cut off it can leave a crescent-shaped oxbow lake.",
            "A drainage basin, or watershed, is all the land whose rainfall drains into a particular river.",
        ],
        "deserts": [
            "A desert is defined by low precipitation, usually less than 250 millimetres of rain a year, not by heat.",
            "The Sahara is the largest hot desert on Earth, covering much of northern Africa.",
            "Antarctica is technically the largest desert, because it receives very little precipitation.",
            "Cacti store water in their thick stems and have spines instead of leaves to reduce water loss.",
            "Desert temperatures can fall sharply at night because dry air and clear skies let heat escape quickly.",
        ],
        "coral_reefs": [
            "Coral reefs are built by colonies of tiny animals called polyps that secrete skeletons of calcium carbonate.",
            "Corals get much of their food from algae living in their tissues, which also give them their colour.",
            "Coral bleaching happens when warm water makes corals expel their algae, leaving them white and starving.",
            "The Great Barrier Reef off Australia is the largest coral reef system in the world.",
            "Although reefs cover a tiny part of the ocean floor, they shelter about a quarter of all marine species.",
        ],
        "rainforests": [
            "Tropical rainforests receive heavy rain all year and hold more than half of the world's plant and animal species.",
            "The canopy, the dense upper layer of rainforest trees, captures most of the sunlight, leaving the forest floor dim.",
            "The Amazon rainforest is the largest tropical rainforest, spreading across nine South American countries.",
            "Clearing rainforest for cattle ranching and crops releases stored carbon and destroys habitats.",
            "Rainforest soils are often thin and poor, because nutrients are held in the living plants rather than the ground.",
        ],
    },
    "animals": {
        "honeybees": [
            "Honeybees communicate the direction and distance of flowers to their hive mates with the waggle dance.",
            "A honeybee colony has one queen, thousands of female worker bees and, in summer, male drones.",
            "Bees make honey by collecting nectar, adding enzymes and evaporating the water by fanning their wings.",
            "Honeybees pollinate many crops, including apples, almonds and blueberries.",
            "Worker bees build honeycomb from wax produced by glands on their abdomen.",
        ],
        "octopus": [
            "An octopus has three hearts and blue blood, which carries oxygen using copper-based haemocyanin.",
            "Octopuses change colour and texture in a fraction of a second using skin cells called chromatophores.",
            "Most of an octopus's neurons are in its arms, which can taste and touch independently.",
            "When threatened, an octopus can squirt a cloud of ink to confuse predators and escape.",
            "Octopuses have been seen using coconut shells as portable shelters, an example of tool use.",
        ],
        "owls": [
            "Owls hunt at night and locate prey by sound; the ears of some species are set at different heights on the head.",
            "Special fringed feathers let owls fly almost silently as they approach their prey.",
            "An owl cannot move its eyes in their sockets, but it can turn its head about 270 degrees.",
            "Owls swallow small prey whole and later cough up pellets of fur and bone.",
            "The snowy owl lives in the Arctic tundra and, unlike most owls, often hunts during the day.",
        ],
        "elephants": [
            "African elephants are the largest living land animals; adult males can weigh more than six tonnes.",
            "An elephant's trunk is a fusion of nose and upper lip with tens of thousands of muscles, used for breathing, smelling, drinking and grasping.",
            "Elephant herds are led by the oldest female, the matriarch, who remembers routes to water and food.",
            "Elephants communicate with low-frequency rumbles that can travel several kilometres through the ground.",
            "Ivory poaching has sharply reduced elephant populations, and international trade in ivory is banned.",
        ],
        "salmon": [
            "Salmon hatch in freshwater streams, migrate to the ocean to grow, and return to rivers to spawn.",
            "Adult salmon find their way back to the stream where they were born largely by their sense of smell.",
            "Salmon leap up waterfalls and fish ladders as they swim upstream to their spawning grounds.",
            "Pacific salmon die after spawning, and their bodies bring ocean nutrients into forest ecosystems.",
            "The pink colour of salmon flesh comes from carotenoid pigments in the krill and shrimp they eat.",
        ],
        "bats": [
            "Bats are the only mammals capable of true flight; their wings are skin stretched between long finger bones.",
            "Many bats navigate and hunt in the dark by echolocation, listening to the echoes of their high-pitched calls.",
            "A single little brown bat can eat hundreds of insects such as mosquitoes in an hour.",
            "Fruit bats pollinate plants and disperse seeds, including those of bananas and agave.",
            "Bats hibernate through winter in caves and mines, lowering their body temperature to save energy.",
        ],
    },
}

# (query text, topic, subject, answer passage indices)
QUERIES: list[tuple[str, str, str, tuple[int, ...]]] = [
    ("why does mars look red", "astronomy", "mars", (0,)),
    ("how long is a year on the red planet", "astronomy", "mars", (3,)),
    ("what is the giant storm on jupiter", "astronomy", "jupiter", (1,)),
    ("who discovered the moons of jupiter", "astronomy", "jupiter", (3,)),
    ("what causes ocean tides", "astronomy", "moon", (1,)),
    ("how did the moon form", "astronomy", "moon", (4,)),
    ("how long does sunlight take to reach earth", "astronomy", "sun", (1,)),
    ("what produces the northern lights", "astronomy", "sun", (3,)),
    ("why do comets have tails", "astronomy", "comets", (1,)),
    ("where do meteor showers come from", "astronomy", "comets", (4,)),
    ("can light escape a black hole", "astronomy", "black_holes", (0, 2)),
    ("first picture of a black hole", "astronomy", "black_holes", (4,)),
    ("what makes dough rise", "cooking", "bread", (0,)),
    ("how do I know when my loaf is done baking", "cooking", "bread", (3,)),
    ("how to keep rice grains from sticking", "cooking", "rice", (0,)),
    ("is it safe to eat leftover cooked rice", "cooking", "rice", (3,)),
    ("what does al dente mean", "cooking", "pasta", (1,)),
    ("how to make sauce stick to spaghetti", "cooking", "pasta", (2,)),
    ("how is espresso brewed", "cooking", "coffee", (1,)),
    ("best water temperature for making coffee", "cooking", "coffee", (3,)),
    ("why does swiss cheese have holes", "cooking", "cheese", (4,)),
    ("what is tempering chocolate", "cooking", "chocolate", (1,)),
    ("why is white chocolate white", "cooking", "chocolate", (3,)),
    ("black bottoms on my tomatoes", "gardening", "tomatoes", (1,)),
    ("how much sun do tomato plants need", "gardening", "tomatoes", (0,)),
    ("when should I prune roses", "gardening", "roses", (0,)),
    ("dark spots on rose leaves", "gardening", "roses", (1,)),
    ("what should not go in a compost bin", "gardening", "composting", (2,)),
    ("composting with worms", "gardening", "composting", (4,)),
    ("how often should I water the lawn", "gardening", "lawn", (0,)),
    ("why is there moss in my grass", "gardening", "lawn", (3,)),
    ("how to stop mint from spreading", "gardening", "herbs", (1,)),
    ("do apple trees need a pollination partner", "gardening", "fruit_trees", (1,)),
    ("what is a python virtual environment for", "computing", "python", (1,)),
    ("why is python threading slow for cpu work", "computing", "python", (3,)),
    ("how do indexes make database queries faster", "computing", "databases", (1,)),
    ("what does acid mean for transactions", "computing", "databases", (2,)),
    ("how should passwords be stored", "computing", "encryption", (3,)),
    ("difference between public and private keys", "computing", "encryption", (1,)),
    ("what does a lexer do", "computing", "compilers", (2,)),
    ("how does dns work", "computing", "networks", (2,)),
    ("tcp versus udp", "computing", "networks", (0, 3)),
    ("what is a merge conflict in git", "computing", "version_control", (2,)),
    ("how many hours of sleep do adults need", "health", "sleep", (0,)),
    ("do screens at night affect sleep", "health", "sleep", (2,)),
    ("signs of dehydration", "health", "hydration", (0,)),
    ("can you drink too much water", "health", "hydration", (3,)),
    ("what causes rickets", "health", "vitamin_d", (2,)),
    ("foods that contain vitamin d", "health", "vitamin_d", (3,)),
    ("how much exercise per week is recommended", "health", "exercise", (0,)),
    ("how do vaccines work", "health", "vaccines", (0, 3)),
    ("who made the first vaccine", "health", "vaccines", (2,)),
    ("why do my gums bleed when brushing", "health", "dental_care", (4,)),
    ("who invented the printing press", "history", "printing_press", (0,)),
    ("how were roman roads constructed", "history", "roman_roads", (1,)),
    ("what goods were traded on the silk road", "history", "silk_road", (1,)),
    ("what did james watt improve", "history", "steam_engine", (0,)),
    ("when was the telephone patented", "history", "telephone", (0,)),
    ("who was the first person on the moon", "history", "moon_landing", (0,)),
    ("what destroyed pompeii", "earth", "volcanoes", (1,)),
    ("how do glaciers shape valleys", "earth", "glaciers", (1,)),
    ("which river carries the most water", "earth", "rivers", (0,)),
    ("how is an oxbow lake formed", "earth", "rivers", (3,)),
    ("is antarctica a desert", "earth", "deserts", (2,)),
    ("what is coral bleaching", "earth", "coral_reefs", (2,)),
    ("why is rainforest soil poor", "earth", "rainforests", (4,)),
    ("how do bees tell each other where flowers are", "animals", "honeybees", (0,)),
    ("how many hearts does an octopus have", "animals", "octopus", (0,)),
    ("how do owls fly so quietly", "animals", "owls", (1,)),
    ("who leads an elephant herd", "animals", "elephants", (2,)),
    ("how do salmon find their home stream", "animals", "salmon", (1,)),
    ("how do bats hunt in the dark", "animals", "bats", (1,)),
]


def doc_id(topic: str, subject: str, index: int) -> str:
    """Passage id, e.g. ``astronomy/mars/0``."""
    return f"{topic}/{subject}/{index}"


# query number -> (type, question (None: the one above), hand-written reference answer).
# literal: asked in the passage's own words; paraphrase: the same need in other words; scenario: a user's
# situation that needs the information.
CASES: dict[int, tuple[str, str | None, str]] = {
    1: ("literal", "what gives Mars its reddish colour", "Iron oxide dust on its surface."),
    2: ("paraphrase", None, "687 Earth days."),
    3: ("literal", "what is the Great Red Spot on Jupiter", "A giant storm wider than Earth."),
    4: ("paraphrase", None, "Galileo, in 1610."),
    5: ("paraphrase", None, "Mainly the gravitational pull of the Moon."),
    6: ("scenario", "my daughter asked me where the Moon came from and I had no idea what to tell her",
        "From debris thrown out when a Mars-sized body hit the young Earth."),
    7: ("literal", "how long does light from the Sun take to travel to Earth", "About eight minutes and twenty seconds."),
    8: ("paraphrase", None, "The solar wind, charged particles from the Sun."),
    9: ("paraphrase", None, "Its ice turns to gas near the Sun, forming a coma and a tail."),
    10: ("scenario", "we are going camping to watch shooting stars tonight, what are we actually seeing",
         "Dust left behind by a comet, which Earth passes through."),
    11: ("literal", "can anything escape a black hole, not even light", "No, not even light can escape."),
    12: ("paraphrase", None, "The Event Horizon Telescope's 2019 image of the black hole in M87."),
    13: ("literal", "how does yeast make bread rise", "By fermenting sugars and releasing carbon dioxide."),
    14: ("scenario", None, "When it reaches 90 to 95 degrees Celsius inside and sounds hollow."),
    15: ("paraphrase", None, "Rinse it before cooking to remove surface starch."),
    16: ("scenario", "I left cooked rice on the counter overnight, can I still eat it",
         "Better not: it can grow Bacillus cereus; cool leftovers quickly."),
    17: ("literal", None, "Pasta cooked until still slightly firm to the bite."),
    18: ("scenario", "my tomato sauce keeps sliding off the noodles", "Add a splash of starchy pasta cooking water."),
    19: ("literal", "how is espresso made", "By forcing hot water through finely ground coffee under high pressure."),
    20: ("paraphrase", None, "Just off the boil, about 90 to 96 degrees Celsius."),
    21: ("literal", "what forms the holes in Swiss cheese", "Carbon dioxide bubbles released by bacteria."),
    22: ("literal", "what does tempering chocolate mean", "Heating and cooling it to precise temperatures."),
    23: ("paraphrase", None, "It has no cocoa solids."),
    24: ("scenario", "the bottoms of my tomatoes are going black and sunken",
         "Blossom end rot, caused by calcium deficiency."),
    25: ("literal", "how many hours of direct sunlight do tomato plants need", "Six to eight hours a day."),
    26: ("paraphrase", None, "In late winter or early spring."),
    27: ("scenario", "the leaves on my rose bush have dark spots and are falling off",
         "Black spot, a fungal disease; remove fallen leaves."),
    28: ("paraphrase", None, "Meat, dairy and oily food."),
    29: ("paraphrase", None, "Vermicomposting with red wiggler worms."),
    30: ("paraphrase", None, "Deeply but infrequently."),
    31: ("scenario", "there is moss all over my shady back lawn, should I sow more grass seed",
         "Moss points to shade, poor drainage or acidic soil, not a lack of seed."),
    32: ("scenario", "the mint I planted last year has taken over the whole herb bed", "Grow it in a pot."),
    33: ("paraphrase", None, "Yes, many need a different variety flowering nearby."),
    34: ("paraphrase", None, "It isolates a project's installed packages."),
    35: ("scenario", "I split my number crunching across threads in Python and it got no faster",
         "The global interpreter lock runs one thread's bytecode at a time."),
    36: ("paraphrase", None, "They speed up lookups at the cost of storage and slower writes."),
    37: ("literal", "what do ACID transactions guarantee", "Atomicity, consistency, isolation and durability."),
    38: ("scenario", "I am building a login page, how do I keep the user passwords safe",
         "Store salted hashes from a slow function such as bcrypt or Argon2."),
    39: ("paraphrase", None, "Anyone can encrypt with the public key; only the private key decrypts."),
    40: ("literal", "what does the lexer of a compiler do", "It breaks source text into tokens."),
    41: ("paraphrase", None, "It translates domain names into IP addresses."),
    42: ("literal", None, "TCP is reliable and ordered; UDP is faster but unreliable."),
    43: ("scenario", "git stopped my merge and says both branches changed the same lines",
         "A merge conflict: Git cannot combine the changes automatically."),
    44: ("literal", "how many hours of sleep a night do most adults need", "Seven to nine hours."),
    45: ("scenario", "I scroll on my phone in bed and then cannot fall asleep",
         "Blue light from screens delays melatonin."),
    46: ("paraphrase", None, "Thirst, dark yellow urine, headache and tiredness."),
    47: ("paraphrase", None, "Yes, it can dilute blood sodium (hyponatremia)."),
    48: ("literal", None, "Severe vitamin D deficiency in children."),
    49: ("paraphrase", None, "Oily fish, egg yolks and fortified foods."),
    50: ("scenario", "my doctor told me to move more, how much exercise should I aim for each week",
         "At least 150 minutes of moderate aerobic activity."),
    51: ("paraphrase", None, "They train the immune system to recognise a pathogen."),
    52: ("literal", "who developed the first vaccine", "Edward Jenner, in 1796."),
    53: ("scenario", None, "Often early gum disease, gingivitis."),
    54: ("literal", "who built a printing press with movable metal type", "Johannes Gutenberg."),
    55: ("literal", "how were Roman roads built", "In layers of stone and gravel with a cambered surface."),
    56: ("literal", "what travelled west along the Silk Road", "Silk, spices, paper and porcelain."),
    57: ("paraphrase", None, "He added a separate condenser to the steam engine."),
    58: ("paraphrase", None, "In 1876, by Alexander Graham Bell."),
    59: ("paraphrase", None, "Neil Armstrong."),
    60: ("paraphrase", None, "The eruption of Mount Vesuvius in 79 AD."),
    61: ("literal", "what kind of valleys do glaciers carve", "U-shaped valleys."),
    62: ("paraphrase", None, "The Amazon."),
    63: ("scenario", "on a hike we found a crescent-shaped lake next to a winding river, how did it get there",
         "A meander loop of the river was cut off."),
    64: ("literal", "is Antarctica technically the largest desert", "Yes, because it gets very little precipitation."),
    65: ("paraphrase", None, "Corals expel their algae in warm water and turn white."),
    66: ("scenario", "farmers clear rainforest but the land is poor after a few years, why",
         "Rainforest soils are thin; the nutrients are in the plants."),
    67: ("paraphrase", None, "With the waggle dance."),
    68: ("literal", "how many hearts does an octopus have", "Three."),
    69: ("scenario", "we heard an owl hunting in the garden but it made no sound at all",
         "Fringed feathers let owls fly almost silently."),
    70: ("paraphrase", None, "The oldest female, the matriarch."),
    71: ("paraphrase", None, "Largely by their sense of smell."),
    72: ("scenario", "my kids want to know how the bats in our attic catch insects at night",
         "By echolocation, listening to the echoes of their calls."),
}


def documents() -> list[dict]:
    """One document per topic: a title line, then one paragraph per subject (its passages joined)."""
    docs = []
    for topic, subjects in PASSAGES.items():
        paragraphs = [topic.capitalize()] + [" ".join(passages) for passages in subjects.values()]
        docs.append({"doc_id": f"{topic}.txt", "text": "\n\n".join(paragraphs) + "\n"})
    return docs


def testset(docs: list[dict]) -> list[dict]:
    """The typed test set: every question with its reference answer and verbatim evidence spans."""
    text_of = {d["doc_id"]: d["text"] for d in docs}
    cases = []
    for n, (question, topic, subject, answers) in enumerate(QUERIES, start=1):
        qtype, override, answer = CASES[n]
        spans, evidence = [], []
        for i in answers:
            passage = PASSAGES[topic][subject][i]
            start = text_of[f"{topic}.txt"].index(passage)
            spans.append({"doc_id": f"{topic}.txt", "start": start, "end": start + len(passage)})
            evidence.append(passage)
        cases.append({"query_id": f"q{n:03d}", "query": override or question, "query_type": qtype,
                      "answer": answer, "evidence": evidence, "evidence_spans": spans})
    return cases


def write(directory: Path = DATA_DIR) -> None:
    """Write ``documents.jsonl`` and ``testset.jsonl`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    docs = documents()
    for name, records in (("documents", docs), ("testset", testset(docs))):
        with open(directory / f"{name}.jsonl", "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":  # pragma: no cover
    write()
    print(f"wrote {DATA_DIR}")
