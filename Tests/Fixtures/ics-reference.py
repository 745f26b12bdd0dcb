#!/usr/bin/env python3
"""The reference busy times of a folder of iCalendar files, from `recurring-ical-events`.

    ics-reference.py FOLDER ZONE

For each `*.ics` file the reference can read, two windows Hearth's differential test compares
(`later`: from a week after the file's first event, 90 days, as issue 42 asks; `first`: the
year from the first event's day, so that single events count too), each in the household's ZONE,
and every occurrence the reference gives in it that blocks time: its UID (null when the event has none), its start as
a UTC instant, and its length in seconds. Transparent and cancelled events are left out, as
Hearth leaves them out of busy times. Floating times and dates are in ZONE. Prints one JSON object,
by file name; a file the reference cannot read is `{"error": …}` and is not compared.

`deploy/bootstrap test` unpacks recurring-ical-events and what it needs (icalendar 6,
x-wr-timezone, tzdata) into .build/python-ical, which the test puts first on PYTHONPATH.
"""

import datetime
import json
import pathlib
import sys
import zoneinfo

import icalendar
import recurring_ical_events

folder, zone_name = pathlib.Path(sys.argv[1]), sys.argv[2]
zone = zoneinfo.ZoneInfo(zone_name)
UTC = datetime.timezone.utc


def instant(value):
    """A DATE or DATE-TIME as an aware datetime: floating and dates in the household's zone."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=zone)
    return datetime.datetime(value.year, value.month, value.day, tzinfo=zone)


def first_start(calendar):
    starts = []
    for event in calendar.walk("VEVENT"):
        start = event.get("DTSTART")
        if start is None:
            continue
        try:
            starts.append(instant(start.dt).astimezone(zone).date())
        except Exception:  # an unreadable DTSTART: the reference skips the event too
            continue
    return min(starts) if starts else None


def blocks_time(event):
    transparency = str(event.get("TRANSP", "OPAQUE")).upper()
    status = str(event.get("STATUS", "")).upper()
    return transparency not in ("TRANSPARENT",) and status != "CANCELLED"


def window(calendar, start_day, days):
    """Every occurrence that blocks time from `start_day`, for `days` days."""
    end_day = start_day + datetime.timedelta(days=days)
    bounds = (
        datetime.datetime(start_day.year, start_day.month, start_day.day, tzinfo=zone),
        datetime.datetime(end_day.year, end_day.month, end_day.day, tzinfo=zone),
    )
    events = []
    for event in recurring_ical_events.of(calendar, skip_bad_series=True).between(*bounds):
        if not blocks_time(event):
            continue
        start = instant(event["DTSTART"].dt)
        if "DTEND" in event:
            end = instant(event["DTEND"].dt)
        elif "DURATION" in event:
            end = start + event["DURATION"].dt
        elif isinstance(event["DTSTART"].dt, datetime.datetime):
            end = start
        else:
            end = start + datetime.timedelta(days=1)
        uid = event.get("UID")
        events.append([
            None if uid is None else str(uid),
            start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            int((end - start).total_seconds()),
        ])
    events.sort(key=lambda item: (item[1], item[0] or ""))
    return {
        "from": start_day.isoformat(),
        "through": (end_day - datetime.timedelta(days=1)).isoformat(),
        "events": events,
    }


def reference(path):
    calendars = icalendar.Calendar.from_ical(path.read_bytes(), multiple=True)
    if not calendars:
        raise ValueError("no VCALENDAR")
    calendar = calendars[0]
    for other in calendars[1:]:  # several calendars in one file: their components together
        for component in other.subcomponents:
            calendar.add_component(component)
    first = first_start(calendar)
    if first is None:
        return {"error": "no event with a DTSTART"}
    return {
        "later": window(calendar, first + datetime.timedelta(days=7), 90),
        "first": window(calendar, first, 365),
    }


results = {}
for path in sorted(folder.glob("*.ics")):
    try:
        results[path.name] = reference(path)
    except Exception as error:  # what the reference cannot read is not compared
        results[path.name] = {"error": f"{type(error).__name__}: {error}"}
json.dump(results, sys.stdout, indent=1, sort_keys=True)
