"""Domains where people learn and follow: a course catalogue, sports results."""

from __future__ import annotations

from plandvc.world.fields import Domain, Person, Sentence, TableDef, Words
from plandvc.world.kit import date, enum, num, text

COURSES = Domain(
    "courses",
    "a course catalogue",
    ("Learnwell", "OpenCampus", "Skillbridge Academy", "Lecture Hall"),
    "Learn from top universities",
    "Build skills that matter",
    (
        TableDef(
            "courses",
            "Courses",
            "course",
            "CRS-",
            (
                text(
                    "title",
                    "Course",
                    Words(
                        (
                            ("Introduction to", "Applied", "Foundations of", "Advanced", "Practical"),
                            (
                                "Machine Learning",
                                "Data Analysis",
                                "Python",
                                "Finance",
                                "Psychology",
                                "Design",
                                "Statistics",
                                "Marketing",
                                "Public Health",
                                "Climate Science",
                                "Web Development",
                                "Ethics",
                            ),
                        )
                    ),
                ),
                enum(
                    "subject",
                    "Subject",
                    ("Data Science", "Business", "Computer Science", "Health", "Arts", "Science"),
                ),
                enum("level", "Level", ("Beginner", "Intermediate", "Advanced"), badge=True),
                num("weeks", "Weeks", 2, 16),
                num("rating", "Rating", 3.4, 5.0, decimals=1, stars=True),
                num("enrolled", "Enrolled", 120, 98000),
                date("starts", "Starts", -20, 150),
                text("instructor", "Instructor", Person()),
                text(
                    "about",
                    "About",
                    Sentence(
                        ("Learn {0} through {1}.", "A hands-on course: {0} with {1}."),
                        (
                            ("the core ideas", "practical skills", "real projects", "the fundamentals"),
                            ("weekly labs", "case studies", "peer review", "guided projects"),
                        ),
                    ),
                ),
            ),
            "title",
            "subject",
            "level",
            "weeks",
            "starts",
            ("rating", "enrolled", "starts", "weeks"),
            ("title", "instructor"),
            text="about",
            copy="title",
            slider_label="Max weeks",
            date_label="Starts",
        ),
        TableDef(
            "enrolments",
            "Enrolments",
            "enrolment",
            "E-",
            (
                text("learner", "Learner", Person()),
                enum("track", "Track", ("Audit", "Certificate", "Degree credit")),
                enum(
                    "progress",
                    "Progress",
                    ("Not started", "In progress", "Completed", "Withdrawn"),
                    badge=True,
                ),
                num("grade", "Grade", 0, 100, suffix=" %"),
                date("enrolled", "Enrolled on", -300, 0),
                text(
                    "email",
                    "Email",
                    Words(
                        (
                            ("ana", "ben", "chen", "dina", "eli", "fay", "gil", "hal"),
                            ("92", "17", "x", "_s", "01"),
                            ("@mail.example",),
                        ),
                        sep="",
                    ),
                ),
            ),
            "learner",
            "track",
            "progress",
            "grade",
            "enrolled",
            ("grade", "enrolled"),
            ("learner", "email"),
            create=("learner", "track", "progress", "grade"),
            edit=("track", "progress", "grade"),
            copy="email",
            slider_label="Max grade",
            date_label="Enrolled",
        ),
    ),
)

_TEAMS = ("Harbour City", "Northvale", "Redfield", "Eastport", "Kingsbridge", "Westmoor", "Lakeside", "Ironbridge",
          "Southgate", "Fairhaven", "Millbrook", "Stonebridge")  # fmt: skip

SPORTS = Domain(
    "sports",
    "sports results",
    ("ScoreCentral", "Matchday Live", "Fullback Sports", "Podium Daily"),
    "Scores, fixtures and tables",
    "All the scores, as they happen",
    (
        TableDef(
            "matches",
            "Results",
            "match",
            "G-",
            (
                text("fixture", "Match", Words((_TEAMS, ("vs",), _TEAMS))),
                enum(
                    "league",
                    "League",
                    ("Premier Division", "Championship", "Cup", "Women's League", "Basketball"),
                ),
                enum("result", "Result", ("Home win", "Away win", "Draw"), badge=True),
                num("goals", "Total goals", 0, 9),
                num("attendance", "Attendance", 1200, 61000),
                date("played", "Played", -200, 0),
                text("venue", "Venue", Words((_TEAMS, ("Park", "Arena", "Stadium", "Ground")))),
            ),
            "fixture",
            "league",
            "result",
            "attendance",
            "played",
            ("played", "attendance", "goals"),
            ("fixture", "venue"),
            copy="fixture",
            slider_label="Max attendance",
            date_label="Played",
        ),
        TableDef(
            "players",
            "Players",
            "player",
            "PLR-",
            (
                text("name", "Player", Person()),
                enum("position", "Position", ("Goalkeeper", "Defender", "Midfielder", "Forward")),
                enum("status", "Status", ("Fit", "Injured", "Suspended", "On loan"), badge=True),
                num("goals", "Goals", 0, 34),
                num("age", "Age", 17, 38),
                date("signed", "Signed", -2000, -1),
                text("team", "Team", Words((_TEAMS,))),
            ),
            "name",
            "position",
            "status",
            "goals",
            "signed",
            ("goals", "age", "signed"),
            ("name", "team"),
            create=("name", "position", "status", "goals", "age"),
            edit=("status", "goals", "position"),
            copy="name",
            slider_label="Max goals",
            date_label="Signed",
        ),
    ),
)

DOMAINS = (
    COURSES,
    SPORTS,
)
