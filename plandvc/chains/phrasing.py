"""Varied phrasing (`chains.phrasing: varied`): the user's request in many wordings drawn by the seed, and the
split of those wordings into a training and a held-out set.

- **The registry** (`PHRASINGS`): a clause kind (a constraint by kind and operator, a sort by type and
  direction, a search, an entry part, a goal question, a link between parts, an opening, the final message)
  → its phrasings. A phrasing's id is `kind#n`. Other modules add kinds with `register` (new goal kinds'
  words join here), never by editing the draw.
- **The split** (`PhrasingSplit`): per clause kind, a seeded share of its phrasings is held out; training
  chains draw only the training ones, the evaluation's chains only the held-out ones (a kind with one
  phrasing keeps it in both). Each chain records the set and the ids it used (`ChainSpec.phrasing`).
- **The voice** of a domain (its file's `[voice]`: other nouns for its lists, lead sentences and purposes):
  "dishes" for recipes, "I'm planning a dinner for six." before the request, "for a weeknight" after it.

Values stay verbatim (the quoted strings, numbers and dates the gates and the scoring read); the constraints of
one list are said in the parts' order (the walk's order, which is the target order: docs/STAGES.md "Order of
constraints"). Pure and seeded, one fixed order of draws.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from plandvc.records import Ask

PHRASINGS: dict[str, tuple[str, ...]] = {}


def register(kind: str, forms: Iterable[str]) -> None:
    """Add `forms` to the clause kind `kind` (a new kind, or more forms of one): ids follow the order added."""
    PHRASINGS[kind] = PHRASINGS.get(kind, ()) + tuple(forms)


# ── the registry: every clause kind's phrasings ─────────────────────────────
# fields: {np} a noun phrase, {p}/{s} plural/singular, {l} a lower label, {v} a value, {vor} values joined with
# "or", {a}/{b} a range, {e} an entry, {q}/{qv} a quoted value, {f} a form's fields, {n} a count, {x} an answer

register("greeting", (
    "Hi!", "Hello.", "Hey there.", "Quick one:", "Hi, hoping you can help.", "Good morning.", "Sorry to bother you.",
    "Hello, a small favour:", "Hey, I could use a hand.", "Hi again.", "Here's what I need:", "Okay, so",
    "Right, next thing.", "Hiya.", "Excuse me,", "Good evening!", "One more request:", "Hello, assistant.",
))  # fmt: skip
register("closing", (
    "Thanks!", "Thank you so much.", "Appreciate it.", "No rush.", "Cheers.", "Thanks in advance.",
    "That would help a lot.", "Much obliged.", "You're a star.", "Many thanks.", "Let me know when it's ready.",
    "I'd be grateful.", "Thanks a bunch.", "That's all for now.", "Ta.", "Thank you kindly.",
))  # fmt: skip
register("open", (
    "Show me {np}.", "I'm looking for {np}.", "Find {np}.", "Could you pull up {np}?", "List {np}.",
    "I need {np}.", "Please find {np}.", "Can you show me {np}?", "Bring up {np}.", "I'd like to see {np}.",
    "Help me find {np}.", "Get me {np}.", "Look for {np}.", "Display {np}, please.", "Give me a list of all {np}.",
    "I want to browse {np}.", "Narrow the list down to {np}.", "Pull up only {np}.", "Would you dig up {np}?",
    "I'm after {np}.", "Search out {np}.", "Put together a view of all {np}.", "Let me see {np}.",
    "Hunt down {np} for me.", "I'm trying to find {np}.",
    "Could you filter the site to {np}?", "Track down {np}.", "Fetch {np}.", "Round up {np}.",
))  # fmt: skip
register("again", (
    "show me {np}", "find {np}", "list {np}", "look up {np}", "pull up {np}", "bring up {np}",
    "get me {np}", "look for {np}", "dig up {np}", "check {np}", "browse {np}", "track down {np}",
))  # fmt: skip
register("link", (
    ", then ", ", and then ", " and ", ". After that, ", "; next, ", ", and once that's done, ", ". Then ",
    ", followed by a second thing: ", ". Next, ", " — and afterwards, ", ". Once you have that, ", "; also, ",
))  # fmt: skip
register("one", (
    "whose {l} is {v}", "with {l} {v}", "where the {l} is {v}", "that have {l} set to {v}", "with {al} of {v}",
    "whose {l} is listed as {v}", "with {v} as their {l}", "with {v} as the {l}", "marked {v} for {l}",
    "that show {v} under {l}", "having {v} for {l}", "filed as {v} by {l}",
))  # fmt: skip
register("one.bare", (
    "listed under {v}", "labelled {v}", "in the {v} group", "tagged {v}", "that count as {v}", "of type {v}",
))  # fmt: skip
register("many", (
    "with {l} {vor}", "whose {l} is {vor}", "where {l} is either {vor}", "with {vor} as {l}",
    "that have {vor} for {l}", "whose {l} is any of {vand}", "in {l} {vor}", "covering {l} {vand}",
))  # fmt: skip
register("max", (
    "with {l} up to {v}", "with {l} of at most {v}", "with {l} no higher than {v}", "with no more than {v} {l}",
    "where {l} stays within {v}", "with {l} of {v} or less", "that don't exceed {v} {l}", "with {l} not above {v}",
    "capped at {v} {l}", "under or at {v} {l}", "whose {l} tops out at {v}", "with a maximum {l} of {v}",
))  # fmt: skip
register("range", (
    "{lead} between {a} and {b}", "{lead} from {a} to {b}", "{lead} from {a} through {b}",
    "{lead} in the window {a} to {b}", "{lead} somewhere between {a} and {b}", "{lead} from {a} on, up to {b}",
    "{lead} no earlier than {a} and no later than {b}", "{lead} between {a} and {b} inclusive",
    "{lead} falling between {a} and {b}", "{lead} within {a} – {b}",
))  # fmt: skip
register("search", (
    'matching "{v}"', 'that mention "{v}"', 'about "{v}"', 'with "{v}" in them', 'containing "{v}"',
    'that come up for "{v}"', 'related to "{v}"', 'that turn up when you search "{v}"', 'for the query "{v}"',
    'that match the term "{v}"', 'having to do with "{v}"', 'that a search for "{v}" finds',
))  # fmt: skip
register("sort.number.desc", (
    "with the highest {l} first", "by {l} from high to low", "sorted by {l}, biggest first",
    "ranked by {l} with the highest on top", "ordered from most to least {l}", "top {l} first",
    "in descending order of {l}", "with the largest {l} leading",
))  # fmt: skip
register("sort.number.asc", (
    "with the lowest {l} first", "sorted by {l}, smallest first", "by {l} from low to high",
    "starting with the lowest {l}", "ordered from least to most {l}", "in ascending order of {l}",
    "lowest {l} on top", "with the smallest {l} leading",
))  # fmt: skip
register("sort.date.desc", (
    "with the most recent {l} first", "newest first by {l}", "sorted by {l}, latest on top",
    "with the latest {l} at the top", "by {l} from newest to oldest", "in descending order of {l}",
))  # fmt: skip
register("sort.date.asc", (
    "with the oldest {l} first", "with the earliest {l} first", "sorted by {l}, oldest on top",
    "by {l} from oldest to newest", "starting from the earliest {l}", "in ascending order of {l}",
))  # fmt: skip
register("sort.text.asc", (
    "by {l} from A to Z", "alphabetically by {l}", "sorted by {l}, A to Z", "in ascending order of {l}",
))  # fmt: skip
register("sort.text.desc", (
    "by {l} from Z to A", "in reverse alphabetical order of {l}", "sorted by {l}, Z to A",
    "in descending order of {l}",
))  # fmt: skip
register("open_entry", (
    'open the {s} "{e}"', 'show me the {s} "{e}"', 'pull up the {s} "{e}"', 'bring up "{e}"',
    'take me to the {s} "{e}"', 'I want to see the {s} "{e}"', 'go to "{e}"', 'let me see the details of "{e}"',
    'display the page of the {s} "{e}"', 'get me into the {s} "{e}"',
))  # fmt: skip
register("open_among", (
    'among them, open "{e}"', 'open "{e}" among them', 'from those, open "{e}"', 'open the one called "{e}"',
    'pick out "{e}" from the results and open it', 'open up "{e}" from that list', 'click into "{e}" there',
    'take me to "{e}" in that list',
))  # fmt: skip
register("edit_entry", (
    'change the {l} of the {s} "{e}" to {qv}', 'set the {l} of "{e}" to {qv}', 'update "{e}" so its {l} is {qv}',
    'make the {l} of "{e}" read {qv}', 'fix the {l} on "{e}": it should be {qv}', 'switch "{e}" to {l} {qv}',
    'edit the {s} "{e}" and put {qv} as its {l}', 'give "{e}" a {l} of {qv}',
))  # fmt: skip
register("delete_entry", (
    'delete the {s} "{e}"', 'remove the {s} "{e}"', 'get rid of "{e}"', 'drop the {s} "{e}"',
    'throw away the {s} "{e}"', 'erase "{e}" from the {p}',
))  # fmt: skip
register("copy_value", (
    'copy the {what} of the {s} "{e}" to my clipboard', 'put the {what} of "{e}" on my clipboard',
    'grab the {what} of the {s} "{e}" for me to paste', 'copy what "{e}" has as its {what}',
))  # fmt: skip
register("navigate_to_page", (
    "show me {the_p}", "take me to {the_p}", "open {the_p}", "bring up the page of {p}",
    "I want the {p} page", "go to {the_p}",
))  # fmt: skip
register("report_information", (
    'what is the {l} of the {s} "{e}"?', 'what {l} does the {s} "{e}" have?', 'which {l} does "{e}" have?',
    "what's the {l} listed for \"{e}\"?", 'can you tell me the {l} of the {s} "{e}"?',
    'do you know the {l} of "{e}"?', 'what does "{e}" have as its {l}?', 'what {l} is given for the {s} "{e}"?',
))  # fmt: skip
register("count_entries", (
    'how many {p} have {l} "{v}"?', 'how many {p} are there with {l} "{v}"?',
    "what's the number of {p} whose {l} is \"{v}\"?", 'how many {p} come under "{v}" for {l}?',
    'can you count the {p} with {l} "{v}"?', 'how many {p} show "{v}" as their {l}?',
))  # fmt: skip
register(
    "switch_tab",
    ('show the {tab} of the {s} "{e}"', 'open the {tab} of "{e}"', 'let me see the {tab} of "{e}"'),
)
register("create_entry", (
    "add {a} {s} with {f}", "create {a} {s} with {f}", "add a new {s} with {f}", "make a new {s}: {f}",
    "set up {a} {s} with {f}", "register {a} {s} with {f}", "put in a new {s} with {f}",
    "I need a new {s} with {f}", "enter {a} {s} with {f}", "file a fresh {s} with {f}",
))  # fmt: skip
register("field", ("{l} {qv}", "{qv} as {l}", "{l} set to {qv}", "{qv} for {l}"))
register("goal.count", (
    "How many {np} are there?", "Can you tell me how many {np} there are?", "I'm looking for {np}. How many are there?",
    "Count the {np} for me, please.", "What is the number of all {np}?", "How many {np} can I choose from?",
    "Give me a count of all {np}.", "Do you know how many {np} exist?", "Tell me the total of all {np}.",
    "How many {np} does the site list?", "I'd like to know how many {np} there are.",
    "Quick question: how many {np} are listed?", "Figure out how many {np} there are.",
    "Please check how many {np} show up.", "What's the total count of all {np}?", "How many {np} turn up?",
))  # fmt: skip
register("goal.top", (
    "Which {s} comes first among {np}?", "Among {np}, which one is at the top?",
    "Looking at {np}, which {s} is first?", "Take {np}: which one heads the list?",
    "Of {np}, which one is number one?", "Name the first of all {np}.", "Which {s} comes out first among {np}?",
    "I'm after {np}. Which one tops the list?", "Tell me which {s} leads among {np}.",
    "Which one is first when I look at {np}?", "Can you find which {s} ranks first among {np}?",
    "What is the name of the first of all {np}?", "Who or what is at the top of all {np}?",
    "Find {np} and tell me which one is first.",
))  # fmt: skip
register("final.count", (
    "There are {n} {np}.", "I found {n} {np}.", "I count {n} {np}.", "The list shows {n} {np}.",
    "All told, there are {n} {np}.", "The answer is {n}: that many {np}.",
))  # fmt: skip
register("final.count.one", (
    "There is exactly 1 among {np}.", "I found just 1 among {np}.", "Only 1 turns up among {np}.",
    "The count is 1: a single one among {np}.", "Just 1: that is all there is among {np}.",
))  # fmt: skip
register("final.top", (
    "The first of all {np} is {x}{value}.", "{x} comes first{value}.", "First on the list is {x}{value}.",
    "At the top is {x}{value}.", "The one that leads is {x}{value}.",
))  # fmt: skip
register("final.done", ("Done: {said}.", "All set: {said}.", "I've finished: {said}.", "Finished: {said}."))
register("final.report", (
    'The {l} of "{e}" is {x}.', '"{e}" has {l} {x}.', 'It is {x}: that is the {l} of "{e}".',
))  # fmt: skip
register("final.count_entries", (
    'There are {x} {p} with {l} "{v}".', 'I count {x} {p} with {l} "{v}".', '{x} {p} have {l} "{v}".',
))  # fmt: skip


# ── more forms of the kinds above (ids continue after the first ones) ──
register("open", (
    "I've been trying to locate {np}.", "Can you get me a view of all {np}?", "Kindly list {np}.",
    "Show just {np}.", "I'd appreciate a look at {np}.", "Gather {np} for me.", "Is there a way to see {np}?",
    "Filter things so I only see {np}.", "Pull together {np}.", "What I want is {np}.",
    "Point me to {np}.", "Surface {np}.", "Dig out {np}.", "Please bring up {np}.",
))  # fmt: skip
register("again", (
    "surface {np}", "fetch {np}", "go find {np}", "have a look at {np}", "pull together {np}",
    "point me to {np}", "gather {np}", "round up {np}",
))  # fmt: skip
register("one", (
    "whose {l} happens to be {v}", "limited to {l} {v}", "restricted to {v} in {l}", "with {l} equal to {v}",
    "that fall under {v} for {l}", "carrying {v} as {l}", "whose {l} reads {v}", "with the {l} {v} only",
))  # fmt: skip
register("one.bare", ("of the {v} sort", "that are {v} ones", "belonging to {v}", "under the {v} heading"))
register("many", (
    "whose {l} matches {vor}", "limited to {l} {vor}", "with either {vor} for {l}", "restricted to {vand} in {l}",
))  # fmt: skip
register("max", (
    "with {l} at or below {v}", "whose {l} doesn't go past {v}", "with {l} limited to {v}",
    "keeping {l} within {v}", "with {l} not exceeding {v}", "whose {l} is {v} tops",
    "where {l} maxes out at {v}", "with {l} no greater than {v}",
))  # fmt: skip
register("range", (
    "{lead} anywhere from {a} to {b}", "{lead} in the period {a} – {b}", "{lead} during {a} through {b}",
    "{lead} between the dates {a} and {b}", "{lead} inside the span {a} to {b}", "{lead} over the stretch {a} to {b}",
))  # fmt: skip
register("search", (
    'on the subject of "{v}"', 'that have "{v}" somewhere', 'turning up for "{v}"', 'concerning "{v}"',
    'that bring up "{v}"', 'tied to "{v}"', 'matching the keyword "{v}"', 'that a lookup of "{v}" returns',
))  # fmt: skip
register("sort.number.desc", (
    "biggest {l} first", "with {l} in decreasing order", "best {l} at the top", "leading with the top {l}",
    "ranked from highest to lowest {l}", "with the greatest {l} up front",
))  # fmt: skip
register("sort.number.asc", (
    "smallest {l} first", "with {l} in increasing order", "least {l} at the top", "ranked from lowest to highest {l}",
    "with the fewest {l} up front", "beginning with the least {l}",
))  # fmt: skip
register("sort.date.desc", (
    "latest {l} first", "freshest {l} on top", "with {l} from latest to earliest", "most recent by {l} up front",
))  # fmt: skip
register("sort.date.asc", (
    "earliest {l} first", "with {l} from earliest to latest", "oldest by {l} up front", "beginning with the earliest {l}",
))  # fmt: skip
register("sort.text.asc", ("ordered A to Z by {l}", "alphabetised by {l}"))
register("sort.text.desc", ("ordered Z to A by {l}", "reverse-alphabetised by {l}"))
register("goal.count", (
    "Could you work out how many {np} there are?", "I wonder how many {np} there are.",
    "How many {np} would I find?", "Count up {np}: how many?", "Any idea how many {np} exist?",
    "Get me the number of all {np}.", "Let me know how many {np} there are.", "Check the count of all {np}, please.",
))  # fmt: skip
register("goal.top", (
    "Which {s} shows up first among {np}?", "Could you check which one leads {np}?",
    "Which entry sits at the top of all {np}?", "Find out which {s} is first among {np}.",
    "Which one would I see first among {np}?", "Tell me the first of all {np}.",
))  # fmt: skip
register("greeting", (
    "Morning!", "Hi there, quick task.", "Hello, hope you're well.", "Hey, a favour please.", "Greetings.",
    "Hi, short request.", "Good afternoon.", "Hey hey.", "So,", "Alright,", "Hello again!", "Hi, thanks for helping.",
))  # fmt: skip
register("closing", (
    "Thanks heaps.", "Grateful for the help.", "Thank you!", "Much appreciated.", "That's it, thanks.",
    "Ping me when done.", "Take your time.", "Thanks, you're great.", "Cheers for that.", "Lovely, thanks.",
))  # fmt: skip
register("link", (
    ". Also, ", ", and after that ", "; then ", ". When that's done, ", ", plus ", ". Second, ",
    ", and finally ", ". And then ",
))  # fmt: skip

register("aside", (
    "I don't mind which ones.", "Whatever the site shows is fine.", "It's for work.", "I'll go through them later.",
    "Keep it simple.", "No need to explain anything.", "My colleague will read them afterwards.",
    "I'm in a bit of a hurry.", "I need this just once.", "Nothing fancy is needed.", "I trust your judgement on the rest.",
    "Just the list is enough.", "I'm on my phone, so keep it short.", "It doesn't have to be perfect.",
    "We can refine it afterwards.", "I asked yesterday but lost the page.", "The details matter to me.",
    "I'll compare them myself.", "Please be careful with the values.", "This helps me decide quickly.",
    "My manager is waiting on this.", "It's part of a bigger plan.", "I've never used this site before.",
    "I usually do this by hand.", "Accuracy matters more than speed.", "I only need what I asked for.",
    "Skip anything unrelated.", "A friend recommended this site.", "I'm writing notes as we go.",
    "It's fine to leave everything else as it is.",
))  # fmt: skip
register("hedge", (
    "Ideally, ", "If possible, ", "When you get a chance, ", "If it isn't too much trouble, ", "Whenever you can, ",
    "As soon as you can, ", "If you would, ", "At your convenience, ", "For starters, ", "First of all, ",
    "To begin with, ", "Basically, ", "In short, ", "Honestly, ", "Right now, ",
))  # fmt: skip


# ── more forms (issue 45's measure: the goal kinds' requests beside these) ──
register("goal.count", (
    "Tally {np} for me.", "What number of all {np} does the site have?", "Roughly how many {np} are there? I need the exact count.",
    "Count how many {np} exist.", "I need a headcount of all {np}.", "How many {np} are listed right now?",
))  # fmt: skip
register("goal.top", (
    "Which {s} leads when I look at {np}?", "Name the {s} that heads {np}.", "What comes first among {np}?",
    "Among {np}, what is the first {s}?", "Which {s} is listed first among {np}?", "Tell me the top entry of all {np}.",
))  # fmt: skip
register("aside", (
    "I'm comparing options for later.", "I keep forgetting where to find this.", "It's for a report due soon.",
    "I checked once before but want to be sure.", "Just the answer will do.", "I'll double-check it myself later.",
    "A short reply is fine.", "This is for a friend.", "I'm sorting out my notes.", "I only have a minute.",
    "The exact value matters here.", "I'm on a tight schedule today.", "My team asked me to find out.",
    "It's for a spreadsheet I'm filling in.", "Don't change anything else.",
))  # fmt: skip
register("hedge", (
    "Quickly, ", "If you can, ", "When you have a moment, ", "Please, ", "Just so I know, ", "For my notes, ",
    "Out of curiosity, ", "Before I forget, ", "If that's okay, ", "No pressure, but ",
))  # fmt: skip
register(
    "greeting",
    ("Hey, quick question.", "Hello, hello!", "Hi, I need some help.", "Evening!", "Hi folks.", "Yo."),
)
register("closing", (
    "Thanks a lot.", "Cheers, mate.", "I owe you one.", "Thanks for checking.", "That's everything.", "Appreciated!",
))  # fmt: skip
register("one", (
    "set to {v} for {l}", "where {l} says {v}", "whose {l} shows {v}", "with the {l} value {v}", "sorted under {v} for {l}",
    "where {v} is the {l}", "that list {v} as {l}", "having {l} {v}",
))  # fmt: skip
register("max", (
    "with at most {v} {l}", "whose {l} stays under or at {v}", "where {l} is {v} at the most", "with {l} below or equal to {v}",
))  # fmt: skip
register("range", (
    "{lead} sometime between {a} and {b}", "{lead} from {a} until {b}", "{lead} between {a} and {b}, both included",
    "{lead} in the range {a} to {b}",
))  # fmt: skip
register(
    "search",
    ('that show up for "{v}"', 'dealing with "{v}"', 'with "{v}" as a keyword', 'found by searching "{v}"'),
)
register("many", ("whose {l} is one of {vand}", "with {l} being {vor}", "where the {l} is {vor}"))

register("aside", (
    "I lost the link I had.", "It's for a class project.", "I'm new to this.", "My notes are a mess right now.",
    "I only trust what the site says.", "Nothing else needs changing.", "The numbers have to be exact.",
    "I'll be offline soon.", "This is the last thing on my list.", "Let's keep this between us.", "I'm double-checking a hunch.",
    "It settles a bet with a friend.", "My boss likes the details.", "I'm filling in a form.", "Something quick, please.",
    "I'd rather not scroll myself.", "My eyes are tired from screens.", "It's for the newsletter.",
    "I'll paste it into a message.", "That's the only thing I need.",
))  # fmt: skip
register("hedge", ("Actually, ", "Real quick, ", "So, ", "Now, ", "Anyway, ", "Also, "))
register("greeting", ("Hi, me again.", "Hello, friend.", "Hey!", "Hi, a quick one."))
register("closing", ("Thanks again.", "Cheers!", "Speak soon.", "Thank you, that's all."))

register("one", (
    "coded {v} for {l}", "whose {l} comes out as {v}", "with {l} given as {v}", "where the {l} equals {v}",
    "showing {l} {v}", "with {l} marked as {v}", "that carry the {l} {v}", "whose {l} field says {v}",
    "that are {v} in {l}", "with the {l} set at {v}",
))  # fmt: skip
register("max", (
    "with {l} topping out at {v}", "with {l} of {v} at most", "whose {l} isn't over {v}", "with {l} at {v} or less",
    "whose {l} is no more than {v}", "without going past {v} {l}",
))  # fmt: skip
register("range", (
    "{lead} from {a} up until {b}", "{lead} across {a} to {b}", "{lead} spanning {a} to {b}", "{lead} on or after {a} and by {b}",
))  # fmt: skip
register("search", (
    'that bring up the word "{v}"', 'linked to "{v}"', 'in which "{v}" appears', 'with "{v}" mentioned',
    'for the search "{v}"', 'picked up by the term "{v}"',
))  # fmt: skip
register("aside", (
    "I'm trying to settle something.", "It's for my own records.", "I'll decide once I see it.", "Nothing urgent.",
    "I've got a meeting in ten minutes.", "Please don't open anything else.", "It saves me a lot of clicking.",
    "I'm asking for my partner.", "The page is slow on my laptop.", "I'll write it down straight away.",
    "It's been on my to-do list all week.", "It matters for a decision today.", "I'm working from a train.",
    "My memory of it is fuzzy.", "I want to be sure before I commit.",
))  # fmt: skip
register("goal.count", (
    "How many {np} are on the site?", "Could you count {np}?", "I'd like the count of all {np}.", "Count {np} and tell me.",
    "Tell me how many {np} you see.", "How large is the list of all {np}?",
))  # fmt: skip
register("goal.top", (
    "Which {s} is at the head of all {np}?", "What's the top {s} among {np}?", "Find the leading one of all {np}.",
    "Among {np}, name the {s} on top.", "I want the first {s} of all {np}.", "Which is number one among {np}?",
))  # fmt: skip

register("aside", (
    "I'm sorting this out for my family.", "It's just for my own curiosity.", "I'll share it with the group.",
    "We're deciding this evening.", "It's a small thing but it matters.", "I've been putting this off.",
    "I'd check myself but I'm driving.", "This came up in a conversation.", "I need it for an email.",
    "I'm trying to get organised.", "The site confuses me a bit.", "It's for a quick comparison.",
    "Please stick to exactly that.", "The answer goes in my planner.", "I'm helping a neighbour with this.",
    "It should only take a moment.", "I've got two tabs open already.", "My laptop battery is low.",
    "I'm preparing for tomorrow.", "It's a single question.",
))  # fmt: skip
register("hedge", (
    "Whenever it suits you, ", "If you don't mind, ", "By the way, ", "While you're at it, ", "Once you're free, ",
    "To be clear, ", "Just quickly, ", "If you have time, ",
))  # fmt: skip

register("goal.top", (
    "Who's leading among {np}?", "Which {s} ranks highest among {np}?", "Tell me the leading {s} of all {np}.",
    "Name the winner among {np}.", "Which {s} is the first one in {np}?", "What's in first place among {np}?",
    "Give me the first {s} of all {np}.", "Which {s} takes first place among {np}?",
))  # fmt: skip
register("goal.count", (
    "Find out how many {np} exist.", "How many {np} are listed?", "Get me a count of all {np}, please.",
    "I'm curious how many {np} there are.",
))  # fmt: skip
register("range", (
    "{lead} no sooner than {a} and by {b} at the latest", "{lead} starting {a} and ending {b}", "{lead} within {a} and {b}",
    "{lead} from {a} onward until {b}", "{lead} beginning {a}, ending {b}", "{lead} for {a} through {b}",
))  # fmt: skip
register("many", ("matching {l} {vor}", "having {l} {vor}", "with any of {vand} as {l}", "in the {l} {vor}"))
register("one.bare", ("among the {v} ones", "classed as {v}", "flagged {v}", "in {v}"))
register(
    "max",
    (
        "with {l} under {v} or equal",
        "whose {l} peaks at {v}",
        "with {l} capped at {v}",
        "with {l} at {v} or under",
    ),
)

register("closing", (
    "Thanks, that helps.", "Talk later.", "Bye for now.", "I appreciate your help.", "Much love.", "That's all, ta.",
    "Super, thanks.", "Grateful as always.", "Thanks so much!", "Brilliant, thank you.", "Have a good one.", "Cheers, that's it.",
))  # fmt: skip
register("greeting", (
    "Hi, hope all is well.", "Hello, could you help?", "Hey, got a moment?", "Hi, small ask.", "Hello again, friend.",
    "Hey, need a hand here.", "Good day.", "Hi, it's me.", "Hey, one thing.", "Hello, quick one for you.",
))  # fmt: skip
register("search", (
    'where "{v}" comes up', 'that talk about "{v}"', 'with a mention of "{v}"', 'under the keyword "{v}"',
    'on the topic of "{v}"', 'returned for "{v}"', 'that list "{v}"', 'containing the text "{v}"',
))  # fmt: skip
register("max", (
    "whose {l} won't pass {v}", "with {l} up to and including {v}", "with {l} of no more than {v}",
    "whose {l} maxes at {v}", "with {l} staying at or under {v}", "with {l} {v} or below",
))  # fmt: skip
register("one", (
    "whose {l} turns out to be {v}", "where {l} is exactly {v}", "with {l} as {v}", "that use {v} for {l}",
    "whose {l} matches {v}", "that are listed with {l} {v}",
))  # fmt: skip

register("aside", (
    "Please keep the answer brief.", "I'm putting together a summary.", "It's for a quick chat later.",
    "I've asked around but nobody knew.", "We need it for planning.", "I'd like to get this right first time.",
    "It's a detail I keep forgetting.", "I'll take it from here myself.", "No deadline on this.",
    "I'd rather hear it from the site than guess.",
))  # fmt: skip
register("hedge", ("Whenever convenient, ", "Without rushing, ", "Given a minute, ", "If it's no bother, "))

register("closing", (
    "Thanks, I owe you.", "You're a lifesaver.", "Thanks, that'll do.", "Looking forward to it.", "Thank you very much.",
    "Great, thanks!", "Much obliged, friend.", "Thanks, have a nice day.", "Okay, over to you.", "Shout if anything's unclear.",
    "Nice one, thanks.", "Thanks for sorting this.", "Ever so grateful.", "I'll wait for your answer.", "Thanks, bye.",
))  # fmt: skip
register("greeting", (
    "Hi, could you do something for me?", "Hello, one question.", "Hey, how are you?", "Hi, hope your day is going well.",
    "Morning, quick favour.", "Howdy.", "Hi, a question for you.", "Hello, I've got a task.", "Heya.", "Hi, sorry, one more.",
))  # fmt: skip
register("range", (
    "{lead} running from {a} to {b}", "{lead} any time from {a} to {b}", "{lead} not before {a} and not after {b}",
    "{lead} in the stretch from {a} up to {b}", "{lead} dated {a} to {b}", "{lead} limited to {a} – {b}",
    "{lead} covering {a} through {b}", "{lead} from {a} as far as {b}", "{lead} bounded by {a} and {b}",
    "{lead} between {a} and {b} at the outside",
))  # fmt: skip
register("search", (
    'that fit the search "{v}"', 'in connection with "{v}"', 'where "{v}" is mentioned', 'with the phrase "{v}"',
    'answering to "{v}"', 'showing for "{v}"', 'to do with "{v}"', 'that "{v}" pulls up',
))  # fmt: skip
register("max", (
    "whose {l} stops at {v}", "with {l} {v} tops", "with no {l} beyond {v}", "with {l} under a ceiling of {v}",
    "whose {l} is {v} or lower", "with {l} of {v} at the very most", "with {l} reaching {v} at most", "whose {l} never exceeds {v}",
))  # fmt: skip
register(
    "many", ("whose {l} is either {vor}", "where {l} can be {vor}", "with {l} among {vand}", "of {l} {vor}")
)


# ── more forms (issue 46's language review: the 3-gram margin; ids continue after the ones above) ──
register("aside", (
    "I promised to sort this out today.", "My sister wants to know too.", "I'd like to have it settled.",
    "I'm jotting it in my diary.", "It came up at lunch.", "I want to get it off my list.", "My coffee is going cold.",
    "We talked about it last night.", "It's going into a slide.", "I'm between two meetings.", "It's a tiny detail.",
    "The answer decides my next step.", "I'm keeping a spreadsheet of these.", "Bear with me, I'm new here.",
    "Keep it short, please.", "My manager is waiting on it.", "Just the facts, please.", "I'm curious, nothing more.",
))  # fmt: skip
register("closing", (
    "Thanks heaps.", "Many thanks in advance.", "Ping me when you have it.", "Thanks, speak later.", "That's my lot.",
    "Cheers for this.", "Thanks, legend.", "Over and out.", "Much appreciated, truly.", "Thanks for your time.",
))  # fmt: skip
register("greeting", (
    "Hi, a favour please.", "Hello, need your help.", "Hey, quick favour.", "Good afternoon.", "Hi, hope you're well.",
    "Morning!", "Hey, it's me again.", "Hello, back again.", "Hiya, quick one.", "Hi, could you check something?",
))  # fmt: skip
register("hedge", (
    "Kindly, ", "When it's convenient, ", "If at all possible, ", "Sometime today, ", "If it's easy, ",
    "Whenever you're ready, ", "First thing, ", "For me, ",
))  # fmt: skip
register("one", (
    "whose {l} is marked as {v}", "with their {l} set as {v}", "filed under {v} for {l}", "that say {v} for {l}",
    "where {l} reads {v}", "with {v} in the {l} column", "whose {l} value is {v}", "labelled {v} under {l}",
))  # fmt: skip
register("max", (
    "with {l} that doesn't go above {v}", "whose {l} is within {v}", "with {l} kept at or below {v}",
    "whose {l} sits at {v} or lower", "with {l} capped off at {v}", "that stay at or under {v} {l}",
))  # fmt: skip
register("range", (
    "{lead} somewhere from {a} to {b}", "{lead} in between {a} and {b}", "{lead} from {a} right up to {b}",
    "{lead} no earlier than {a}, no later than {b}", "{lead} within the dates {a} and {b}",
))  # fmt: skip
register("search", (
    'that a search on "{v}" brings back', 'that include "{v}"', 'where "{v}" shows up', 'bearing "{v}"',
    'that match a search for "{v}"', 'with the keyword "{v}"',
))  # fmt: skip
register("goal.count", (
    "How many {np} are on record?", "What's the number of {np}, roughly? I need it exact.", "Count up {np} for me.",
    "Could you tell me the count of {np}?", "I'd like a number: how many {np}?", "How many {np} does the list show?",
))  # fmt: skip
register("goal.top", (
    "Which {s} is top of the list for {np}?", "Who comes first among {np}?", "Which {s} do I see first among {np}?",
    "Tell me the first {s} listed among {np}.", "What heads the list among {np}?", "Which {s} sits first among {np}?",
))  # fmt: skip


@dataclass(frozen=True)
class Voice:
    """A domain's words (its file's `[voice]`): other nouns for a list's plural, lead sentences a user opens
    with, and purposes a request may end on."""

    nouns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    leads: tuple[str, ...] = ()
    purposes: tuple[str, ...] = ()


SETS = ("training", "held-out")  # the phrasing sets a chain draws from
PHRASING = ("v3", "varied")  # chains.phrasing: v3's words, or the varied ones


@dataclass(frozen=True)
class PhrasingSplit:
    """The held-out phrasing ids, drawn per clause kind by the seed (a share, at least one of a kind with three
    or more phrasings; a kind with fewer keeps them all in both sets)."""

    seed: int = 0
    share: float = 0.3

    def held(self, kind: str, forms: Sequence[str] | None = None) -> frozenset[int]:
        """The held-out ids of `kind` (of `forms` when given: another registry's, as the `template` reference
        reads v3's words by the registry dataset v4 was made with)."""
        forms = PHRASINGS[kind] if forms is None else forms
        if len(forms) < 3:
            return frozenset()
        order = list(range(len(forms)))
        random.Random(f"phrasing-split:{self.seed}:{kind}").shuffle(order)
        return frozenset(order[: max(1, round(len(forms) * self.share))])

    def usable(self, kind: str, which: str, forms: Sequence[str] | None = None) -> list[int]:
        """The ids of `kind` a chain of set `which` draws from (of `forms` when given)."""
        held = self.held(kind, forms)
        every = range(len(PHRASINGS[kind] if forms is None else forms))
        if not held:
            return list(every)
        return [i for i in every if (i in held) == (which == "held-out")]


class Drawer:
    """The draws of one chain: a phrasing of a kind from its set, recording the ids used."""

    def __init__(self, rng: random.Random, split: PhrasingSplit, which: str, voice: Voice) -> None:
        self.rng, self.split, self.which, self.voice = rng, split, which, voice
        self.used: list[str] = []
        self.request: list[str] = []  # the ids the request drew (the rest: the final message's)

    def form(self, kind: str, fits: Callable[[str], bool] | None = None) -> str:
        """A phrasing of `kind` from the chain's set (with `fits`, only among the forms it accepts, when any)."""
        usable = self.split.usable(kind, self.which)
        if fits is not None:
            usable = [i for i in usable if fits(PHRASINGS[kind][i])] or usable
        i = self.rng.choice(usable)
        self.used.append(f"{kind}#{i}")
        return PHRASINGS[kind][i]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def plural(self, ask: Ask) -> str:
        """The list's noun: its own plural, or one of the voice's other nouns for it."""
        others = self.voice.nouns.get(ask["plural"], ())
        return self.rng.choice((ask["plural"], *others)) if others else ask["plural"]


def sort_kind(ask: Ask) -> str:
    """The clause kind of a sort: by the column's type and the direction."""
    kind = ask.get("type", "text")
    kind = kind if kind in ("number", "date") else "text"
    return f"sort.{kind}.{ask.get('dir', 'asc')}"


def either(items: Sequence[str], word: str) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def voice_of(domain: str) -> Voice:
    """The voice of the world's domain `domain` (its file's `[voice]`); a site of no domain file speaks with
    no voice of its own."""
    from plandvc.world.domains import HERE
    from plandvc.world.domains.load import SCHEMA, read_toml

    path = HERE / f"{domain}.toml"
    if not path.is_file():
        return Voice()
    raw = read_toml(path, SCHEMA).get("voice")
    if not isinstance(raw, dict):
        return Voice()
    nouns = raw.get("nouns", {})
    return Voice(
        {str(k): tuple(v) for k, v in nouns.items()},
        tuple(raw.get("leads", ())),
        tuple(raw.get("purposes", ())),
    )
