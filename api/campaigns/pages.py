"""The annotator page: ``/ui/label/<token>``.

A server-rendered shell (``label.html``) whose script (``/ui/static/label.js``) drives the
two annotator routes — ``GET /v1/label/<token>/next`` and ``POST .../answers`` — so the page
and an API client see exactly the same tasks. Its strings come from the gettext catalog of
the annotator's language (:mod:`api.campaigns.i18n`) and reach the script as a JSON data
block (no inline script: the UI's CSP refuses it).

Example::

    GET /ui/label/<token>?lang=en  → the page; an unknown token → a 404 page (throttled)
"""

from __future__ import annotations

import json

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from api.campaigns.i18n import languages, pick_language, translations
from api.campaigns.routes import invitation_or_404, store_of
from api.ui import render
from eval.campaigns.demographics import AGE_BANDS

router = APIRouter(prefix="/ui/label", include_in_schema=False)

STRINGS = {
    "loading": "Loading the next task…",
    "progress": "Task {index} of {size} · session {number}",
    "prompt": "Prompt",
    "instruction": "Instruction",
    "read_hint": "Read the prompt as it appears, then confirm.",
    "read_confirm": "I have read the prompt (Enter)",
    "left": "Left",
    "right": "Right",
    "pair_hint": "Choose with ← or 1 (left), → or 2 (right), or tap an image.",
    "rating_hint": "Rate with the keys 1–5 or the buttons.",
    "ranking_hint": "Press the image numbers from best to worst (or tap them), Backspace to "
    "undo, Enter to send.",
    "undo": "Undo",
    "send_ranking": "Send ranking",
    "image_n": "Image {n}",
    "before": "Before",
    "after": "After",
    "reason": "Why? (optional)",
    "too_fast": "That was faster than this task allows. Please look carefully: you can answer "
    "again in {s} s.",
    "session_done": "Session complete. Take a breath.",
    "continue": "Continue (Enter)",
    "all_done": "All done — thank you! There is nothing left for you to label.",
    "error": "Something went wrong: {message}",
    "closed": "This campaign has closed. Thank you for your help!",
    "ended": "This invitation has ended. Ask for a new link if you want to go on.",
    "show_original": "Show the original",
    "show_translation": "Show the translation",
}


PROFILE = {
    "title": "About you (optional)",
    "why": "These answers only show who took part; every field can stay empty.",
    "age": "Age",
    "gender": "Gender",
    "country": "Country (two-letter code, e.g. DE)",
    "unsaid": "Prefer not to say",
    "woman": "Woman",
    "man": "Man",
    "another": "Another",
    "save": "Save and start",
    "skip": "Skip",
}
"""The optional "about you" form (campaigns with ``demographics``), rendered by the server."""


@router.get("/{token}", response_class=HTMLResponse)
async def label_page(token: str, request: Request) -> HTMLResponse:
    """The labelling page of one invitation."""
    lang = pick_language(request.query_params.get("lang"), request.headers.get("accept-language"))
    tr = translations(lang)
    try:
        rec, who = await invitation_or_404(request, token, fresh=True)
        rec = await store_of(request).record(rec.id) or rec  # its status read now
    except HTTPException as exc:
        message = tr.gettext("This invitation link is not valid. Check the link you were given.")
        return render(request, "label_invalid.html", {"title": tr.gettext("Labelling"),
                                                       "message": message, "lang": lang},
                      exc.status_code)  # fmt: skip
    if rec.status == "closed":
        return render(request, "label_invalid.html", {"title": rec.title or tr.gettext(
            "Labelling"), "message": tr.gettext(STRINGS["closed"]), "lang": lang})  # fmt: skip
    strings = {k: tr.gettext(v) for k, v in STRINGS.items()}
    ask = rec.demographics and not await store_of(request).has_profile(rec.id, who)
    return render(
        request,
        "label.html",
        {
            "title": rec.title or tr.gettext("Labelling"),
            "instructions": rec.instructions or "",
            "lang": lang,
            "token": token,
            "strings": json.dumps(strings, ensure_ascii=False).replace("</", "<\\/"),
            "languages": languages(),
            "ask_profile": ask,
            "profile": {k: tr.gettext(v) for k, v in PROFILE.items()},
            "age_bands": AGE_BANDS,
            "language_label": tr.gettext("Language"),
            "loading": strings["loading"],
        },
    )
