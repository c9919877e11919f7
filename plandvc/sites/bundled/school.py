"""The bundled `school` site (`data/sites/school`): its seeded data, tables, pages and README."""

from __future__ import annotations

import random

from plandvc.sites.bundled import kit as k


def make() -> tuple[k.SiteJson, str]:
    """This site's site.json and doc/README.md."""
    rng, today = random.Random(606), "2026-09-21"
    departments = ["Mathematics", "Sciences", "Humanities", "Languages", "Arts"]
    levels = ["Year 10", "Year 11", "Year 12", "Year 13"]
    terms = ["Autumn", "Spring", "Summer"]
    statuses = ["Active", "Completed", "Withdrawn", "Waitlisted"]
    course_titles = rng.sample([
        "Algebra II", "Statistics", "Calculus", "Biology", "Chemistry", "Physics", "World History", "Geography",
        "Philosophy", "French", "Spanish", "Mandarin", "Studio Art", "Music Theory", "Drama", "Economics",
        "Computer Science", "Creative Writing", "Latin",
    ], 19)  # fmt: skip
    teachers = k.people(rng, 19)
    courses = [
        {"id": f"CRS-{110 + i * 7}", "title": t, "teacher": teachers[i], "department": rng.choice(departments),
         "level": rng.choice(levels), "credits": rng.choice([5, 10, 15, 20]), "starts": k.day(today, rng, -20, 120)}
        for i, t in enumerate(course_titles)
    ]  # fmt: skip
    students = k.people(rng, 24)
    enrolments = [
        {"id": f"ENR-{6001 + i}", "student": s, "course": rng.choice(course_titles), "term": rng.choice(terms),
         "status": rng.choice(statuses), "score": rng.randint(38, 99), "enrolled": k.day(today, rng, -200, -1)}
        for i, s in enumerate(students)
    ]  # fmt: skip
    spec: k.SiteJson = {
        "site": "school", "name": "Maple Grove High School", "today": today,
        "theme": {"layout": "cards", "accent": "#5b3fa0", "background": "#f3f0fa", "font": "DejaVu Sans"},
        "tables": {
            "courses": {
                "title": "Courses", "singular": "course", "key": "id", "label": "title",
                "columns": [
                    k.col("id", "Code", "id"), k.col("title", "Title", "text"), k.col("teacher", "Teacher", "text"),
                    k.col("department", "Department", "enum", values=departments), k.col("level", "Level", "enum", values=levels),
                    k.col("credits", "Credits", "number"), k.col("starts", "Starts", "date"),
                ],
                "rows": courses, "create": ["title", "teacher", "department", "level", "credits", "starts"],
                "edit": ["teacher", "credits", "starts"], "copy": "id",
            },
            "enrolments": {
                "title": "Enrolments", "singular": "enrolment", "key": "id", "label": "student",
                "columns": [
                    k.col("id", "Enrolment", "id"), k.col("student", "Student", "text"), k.col("course", "Course", "text"),
                    k.col("term", "Term", "enum", values=terms), k.col("status", "Status", "enum", values=statuses),
                    k.col("score", "Score", "number", suffix="%"), k.col("enrolled", "Enrolled", "date"),
                ],
                "rows": enrolments, "create": ["student", "course", "term", "status", "enrolled"],
                "edit": ["status", "score"], "copy": "id",
            },
        },
        "pages": [
            {"page": "courses", "title": "Courses", "table": "courses", "controls": [
                k.dropdown("courses-department", "department", "department", "Department"),
                k.options("courses-level", "level", "level", "Level"),
                k.slider("courses-credits", "credits", "max_credits", "Max credits", 0, 20, 5),
                k.sort("courses-sort", ["sort", "dir"], ["title", "credits", "starts"], "Sort by"),
                k.search("courses-search", "q", ["title", "teacher"], "Search"),
            ]},
            {"page": "enrolments", "title": "Enrolments", "table": "enrolments", "controls": [
                k.dropdown("enrolments-term", "term", "term", "Term"),
                k.options("enrolments-status", "status", "status", "Status"),
                k.slider("enrolments-score", "score", "max_score", "Max score", 0, 100, 5),
                k.date_range("enrolments-enrolled", "enrolled", ["from", "to"], "Enrolled"),
                k.sort("enrolments-sort", ["sort", "dir"], ["student", "score", "enrolled"], "Sort by"),
                k.search("enrolments-search", "q", ["student", "course"], "Search"),
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Maple Grove High School (courses and enrolments)\n\n"
        "A secondary school's course office. Courses (CRS-110…) with teacher, department, level, credits and\n"
        "start date; enrolments (ENR-6001…) with student, course, term, status, score and enrolment date.\n"
        "A test site: never used for training rows.\n"
    )
    return spec, doc
