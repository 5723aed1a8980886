"""report.html in a real browser (headless system Chromium through Playwright): it loads from disk with no
console error and no request, its table sorts and filters, its drill-down shows what the data hold, the
keyboard reaches everything, and injection probes in every text do nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from browser_support import WatchedPage, skip_reason  # noqa: E402
from html_pages import PROBE_TEXT, PROBES, notes_page, probe_page, small_page  # noqa: E402

from rag_eval_adapters.reports.html import write_html_report  # noqa: E402

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


@pytest.fixture()
def small(tmp_path):
    return write_html_report(small_page(), tmp_path / "report.html")


def column(page, table: str, index: int) -> list[str]:
    return page.locator(f"#{table} tbody tr").evaluate_all(
        f"rows => rows.map(r => r.children[{index}].textContent)")


def test_the_page_loads_from_disk_under_the_socket_guard_with_no_error_and_no_request(browser, small):
    # the session's browser (conftest.py) was launched under the loopback-only socket guard, in force here too
    watched = WatchedPage(browser, small)
    page = watched.page
    assert page.title() == "test report"
    assert page.locator("h1").text_content() == "test report"
    assert [h.text_content() for h in page.locator("h2").all()] == [
        "Verdict", "Configurations", "Charts", "Paired tests", "Questions", "Question"]
    assert page.locator("th:not([scope])").count() == 0  # every header cell says what it heads
    assert page.locator("#chart-vs-k").get_attribute("role") == "img"
    assert page.locator("#chart-vs-k title").first.text_content() == "ndcg@k by configuration"
    assert watched.console_errors() == [] and watched.foreign_requests() == []


def test_sorting_and_filtering_change_the_configuration_table(browser, small):
    watched = WatchedPage(browser, small)
    page = watched.page
    assert column(page, "config-table", 0) == ["b", "a"]  # headline ndcg@2, best first
    assert page.locator("#config-table th[data-key='m:ndcg@2']").get_attribute("aria-sort") == "descending"
    page.click("#config-table th[data-key='name'] button")
    assert column(page, "config-table", 0) == ["a", "b"]
    page.click("#config-table th[data-key='name'] button")
    assert column(page, "config-table", 0) == ["b", "a"]
    page.click("#config-table th[data-key='m:hit_rate@2'] button")
    assert column(page, "config-table", 0) == ["b", "a"]
    assert column(page, "config-table", 3) == ["0.900", "0.500"]  # ndcg@2, all questions
    page.select_option("#type-filter", "literal")
    assert column(page, "config-table", 3) == ["1.000", "0.800"]  # a, b: tied on hit_rate@2, kept in order
    page.click("#config-table th[data-key='m:ndcg@2'] button")
    assert column(page, "config-table", 0) == ["a", "b"]  # literal ndcg@2: a 1.0, b 0.8
    page.select_option("#type-filter", "all")
    assert column(page, "config-table", 0) == ["b", "a"]  # all questions: b 0.9, a 0.5
    page.select_option("#k-select", "1")
    headers = page.locator("#config-table thead th").all_text_contents()
    assert headers == ["configuration", "retriever", "hit_rate@1", "ndcg@1", "f1"]
    assert watched.console_errors() == [] and watched.foreign_requests() == []


def test_tests_table_shows_adjusted_p_and_charts_give_values_on_hover(browser, small):
    watched = WatchedPage(browser, small)
    page = watched.page
    assert page.locator("#tests-table thead th").all_text_contents()[-2] == "adjusted p"
    assert column(page, "tests-table", 6) == ["0.06"]
    point = page.locator("#chart-vs-k .series[data-series='1'] > :not(path)").nth(1)
    point.hover()
    assert page.locator(".tip").text_content() == "b: ndcg@2 = 0.900"
    ticks = page.locator("#chart-vs-k > text[text-anchor='end']").all_text_contents()
    assert ticks == ["0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00"]  # the values' tenths, not 0..1
    page.select_option("#family-select", "hit_rate")
    assert page.locator("#chart-vs-k title").first.text_content() == "hit_rate@k by configuration"
    markers = page.locator("#chart-by-type .series")
    assert markers.count() == 3  # all + two question types, each its own marker shape
    shapes = {markers.nth(i).locator(":scope > *").first.evaluate("n => n.tagName") for i in range(3)}
    assert len(shapes) == 3


def test_the_drilldown_shows_chunks_grades_highlighted_evidence_answers_and_claims(browser, small):
    watched = WatchedPage(browser, small)
    page = watched.page
    assert column(page, "questions-table", 0) == ["q2", "q1"]  # worst first: mean ndcg@2 0.5 < 0.9
    page.click("#questions-table .qbtn[data-question='0']")
    drill = page.locator("#drilldown")
    assert drill.locator("h2").text_content() == "Question q1"
    assert drill.locator(".q-reference").text_content() == "The Amazon."
    page.select_option("#drill-a", "0")
    page.select_option("#drill-b", "1")
    left, right = drill.locator(".config-column").nth(0), drill.locator(".config-column").nth(1)
    assert left.locator(".chunk").evaluate_all("cs => cs.map(c => [c.dataset.chunkId, c.dataset.grade])") == [
        ["rivers#0", "100"], ["bread#0", "0"]]
    assert right.locator(".chunk").evaluate_all("cs => cs.map(c => c.dataset.chunkId)") == ["bread#0", "rivers#0"]
    evidence = "The Amazon carries more water than any other river."
    assert left.locator("mark.evidence").all_text_contents() == [evidence]
    assert right.locator(".chunk mark").evaluate_all("ms => ms.map(m => [m.className, m.textContent])") == [
        ["evidence", "The Amazon "], ["evidence claim", "carries more water"],
        ["evidence", " than any other river."]]
    assert right.locator(".answer-text").text_content() == "The Amazon river."
    assert right.locator(".claims li").first.text_content().startswith("The Amazon carries the most water.")
    assert right.locator("blockquote mark.claim").text_content() == "carries more water"
    page.click("#questions-table .qbtn[data-question='1']")
    right = drill.locator(".config-column").nth(1)
    assert right.locator(".answer").text_content().endswith("error: TimeoutError: no answer")
    assert right.locator("mark.evidence").all_text_contents() == ["Owls", "at night."]  # two evidence ranges
    assert watched.console_errors() == [] and watched.foreign_requests() == []


def test_the_keyboard_reaches_sorting_and_the_drilldown(browser, small):
    page = WatchedPage(browser, small).page
    page.focus("#config-table th[data-key='name'] button")
    page.keyboard.press("Enter")
    assert column(page, "config-table", 0) == ["a", "b"]
    page.focus("#questions-table .qbtn[data-question='1']")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "drilldown-h"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "drill-a"


def test_injection_probes_in_every_text_do_nothing(browser, tmp_path):
    path = write_html_report(probe_page(), tmp_path / "probe.html")
    watched = WatchedPage(browser, path)
    page = watched.page
    page.click("#questions-table .qbtn[data-question='0']")
    page.select_option("#drill-a", "0")
    page.select_option("#drill-b", "1")
    page.click("#questions-table .qbtn[data-question='1']")
    page.click("#questions-table .qbtn[data-question='0']")
    page.select_option("#type-filter", PROBES[0])
    page.wait_for_timeout(300)
    assert page.title() == "probe " + PROBES[2]
    assert watched.console_errors() == [] and watched.foreign_requests() == []
    counts = page.evaluate("""() => ({scripts: document.scripts.length, img: document.images.length,
        iframes: document.querySelectorAll('iframe, link, object, embed').length,
        links: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')).filter(h => !h.startsWith('#')),
        handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))
                  .filter(n => n.startsWith('on')).length})""")
    assert counts == {"scripts": 2, "img": 0, "iframes": 0, "links": [], "handlers": 0}
    # the probes are shown as the text they are
    assert page.locator("#verdict li").text_content() == PROBE_TEXT
    assert page.locator("#drilldown .q-reference").text_content() == PROBES[2]
    right = page.locator("#drilldown .config-column").nth(1)
    assert right.locator(".answer-text").text_content() == PROBE_TEXT
    # ids show direction overrides as visible code points; texts keep them, isolated
    assert page.locator("#drilldown h2").text_content().startswith("Question [U+202E]evil[U+202C] txt.exe")
    assert page.locator("#drilldown .q-question").evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
    assert column(page, "config-table", 0)[0].startswith(("<img src=x", "[U+202E]evil"))


def test_a_page_of_runs_lists_each_querys_documents_with_their_grades(browser, tmp_path):
    from rag_eval_adapters import evaluate
    from rag_eval_adapters.compare import compare_reports
    from rag_eval_adapters.reports import report_page

    qrels = {"q1": {"d1": 2, "d3": 1}, "q2": {"d2": 1}}
    runs = {"A": {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.4}, "q2": {"d1": 0.4, "d2": 0.3}},
            "B": {"q1": {"d3": 0.8, "d1": 0.7}, "q2": {"d2": 0.9}}}
    reports = {n: evaluate(qrels, r, ["ndcg@1", "ndcg@3", "recall@1", "recall@3"]) for n, r in runs.items()}
    page_data = report_page(reports, title="A vs B", comparison=compare_reports(reports, n_permutations=50,
                                                                                n_bootstrap=50),
                            runs=runs, qrels=qrels)
    watched = WatchedPage(browser, write_html_report(page_data, tmp_path / "runs.html"))
    page = watched.page
    assert column(page, "questions-table", 0) == ["q2", "q1"]
    page.click("#questions-table .qbtn[data-question='0']")
    left = page.locator("#drilldown .config-column").nth(0)
    assert left.locator("h3").text_content() == "B"  # the best configuration overall on the left
    assert left.locator(".chunk").evaluate_all("cs => cs.map(c => [c.dataset.chunkId, c.dataset.grade])") == [
        ["d3", "1"], ["d1", "2"]]
    assert left.locator(".chunk-text").count() == 0  # runs carry no text: ids and grades only
    assert page.locator("#tests-table tbody tr").count() == 4
    assert watched.console_errors() == [] and watched.foreign_requests() == []


def test_a_page_with_nothing_but_a_title_and_one_configuration_loads_without_error(browser, tmp_path):
    for data in ({"title": "empty", "configurations": []},
                 {"title": "one", "configurations": [{"name": "only", "mean": {"map": 0.25}}]}):
        watched = WatchedPage(browser, write_html_report(data, tmp_path / "page.html"))
        assert watched.console_errors() == [] and watched.foreign_requests() == []
        assert watched.page.locator("#questions p").text_content() == "No per-question data in this report."
    assert column(watched.page, "config-table", 1) == ["0.250"]


# x of the first character of ``first`` and of ``second`` where they follow each other in the text of ``selector``
X_OF = """([selector, first, second]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const i = node.data.indexOf(first), j = node.data.indexOf(second, i + first.length);
    if (i < 0 || j < 0) continue;
    const at = k => { const r = document.createRange(); r.setStart(node, k); r.setEnd(node, k + 1);
                      return r.getBoundingClientRect().left; };
    return [at(i), at(j)];
  }
  return null;
}"""


def test_the_verdict_comes_first_with_warnings_left_out_questions_and_intervals(browser, tmp_path):
    watched = WatchedPage(browser, write_html_report(notes_page(), tmp_path / "notes.html"))
    page = watched.page
    order = page.evaluate("[...document.querySelectorAll('main > *')].map(e => e.id || e.tagName)")
    assert order[:5] == ["page-title", "NAV", "verdict", "summary", "configurations"]
    # 24 summary lines and 24 human-label lines no longer push the verdict down: it is in the first screen
    assert page.locator("#verdict li").bounding_box()["y"] < 300
    assert page.locator("#notices .warning").text_content() == \
        "Warning: the judge gpt-x also wrote the answers: it may prefer them"
    assert page.locator("#notices .left-out").all_text_contents() == [
        "2 of 2 questions have no relevant chunk in s256o32 and are left out: q1, q2",
        "1 of 2 questions is marked unanswerable (answerable: false) and is left out of the retrieval scores: q2",
        "1 question is left out of a (a reason of tomorrow): q1"]
    left = page.locator("#notices .left-out").first
    assert left.locator("a").evaluate_all("a => a.map(x => x.getAttribute('href'))") == ["#q1", "#q2"]
    assert page.locator("#configurations .human-labels li").count() == 24
    assert page.evaluate("document.querySelector('#config-box').compareDocumentPosition("
                         "document.querySelector('.human-labels')) & Node.DOCUMENT_POSITION_FOLLOWING") > 0
    # every mean shows its --ci interval under it, for the question type chosen
    assert column(page, "config-table", 3) == ["0.900[0.800, 1.000]", "0.500[0.400, 0.600]"]
    assert "the 90% interval of each mean" in page.locator("#config-table caption").text_content()
    page.select_option("#type-filter", "literal")
    assert column(page, "config-table", 3) == ["1.000[0.000, 1.000]", "0.800[0.000, 1.000]"]
    left.locator("a").nth(1).click()  # a left-out question's link opens it
    assert page.locator("#drilldown h2").text_content() == "Question q2"
    assert watched.console_errors() == [] and watched.foreign_requests() == []


def test_the_table_fits_or_scrolls_inside_its_box_at_1400_px(browser, tmp_path):
    data = notes_page(n_configs=12)
    extra = [f"answer_metric_{i}" for i in range(16)]
    data["extra_metrics"] = extra
    for config in data["configurations"]:
        config["mean"].update({m: 0.5 for m in extra})
        config["intervals"].update({m: [0.25, 0.75] for m in extra})
    data["chunks"]["texts"][0] = "unbroken" * 60 + " " + data["chunks"]["texts"][0]
    data["questions"][0]["text"] = "why" * 120
    watched = WatchedPage(browser, write_html_report(data, tmp_path / "wide.html"), width=1400)
    page = watched.page
    page.click("#questions-table .qbtn[data-question='0']")
    size = page.evaluate("""() => { const box = document.getElementById('config-table').parentElement;
        return {page: document.documentElement.scrollWidth, view: window.innerWidth, main: document.querySelector('main').clientWidth,
                box: box.clientWidth, inner: box.scrollWidth, overflow: getComputedStyle(box).overflowX}; }""")
    assert size["view"] == 1400 and size["page"] <= 1400  # nothing widens the page
    assert size["inner"] > size["box"] <= size["main"] and size["overflow"] == "auto"  # the wide table scrolls
    assert watched.console_errors() == []


def test_every_question_has_an_anchor_and_a_link_that_opens_it(browser, tmp_path):
    data = small_page()
    path = write_html_report(data, tmp_path / "anchors.html")
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto(path.resolve().as_uri() + "#q2")  # opening the page at a question's anchor opens the question
    page.wait_for_selector("html[data-ready]")
    assert page.locator("#drilldown").is_visible() and page.locator("#drilldown h2").text_content() == "Question q2"
    assert page.locator("#drilldown .permalink").get_attribute("href") == "#q2"
    assert page.evaluate("document.getElementById('q1').tagName") == "TR"
    assert page.locator("#q1 a.qlink").get_attribute("href") == "#q1"
    page.click("#q1 a.qlink")
    assert page.locator("#drilldown h2").text_content() == "Question q1"
    page.close()
    # an id the page uses itself, or one that is no plain id, is anchored by its position
    data["questions"][0]["id"], data["questions"][1]["id"] = "main", "q 2"
    watched = WatchedPage(browser, write_html_report(data, tmp_path / "odd.html"))
    rows = watched.page.locator("#questions-table tbody tr").evaluate_all("rs => rs.map(r => r.id)")
    assert sorted(rows) == ["question-1", "question-2"]
    assert watched.page.evaluate("document.getElementById('main').tagName") == "MAIN"
    watched.page.click("#question-1 a.qlink")
    assert watched.page.locator("#drilldown h2").text_content() == "Question main"


def test_a_direction_override_in_a_question_leaves_the_text_after_it_unchanged(browser, tmp_path):
    data = small_page()
    literal = "lit\u202eeral"
    data["query_types"] = {literal: 1, "paraphrase": 1}
    data["questions"][0].update(text="which \u202eriver carries the most water", type=literal)
    data["questions"][1]["text"] = "\u0645\u0627\u0630\u0627 \u062a\u0641\u0639\u0644 \u0627\u0644\u0628\u0648\u0645\u061f"
    for config in data["configurations"]:
        config["by_type"][literal] = config["by_type"].pop("literal")
    data["answers"][1][0]["claims"][0]["text"] = "The \u202eAmazon carries"
    watched = WatchedPage(browser, write_html_report(data, tmp_path / "bidi.html"))
    page = watched.page
    # each text from data is isolated with its own direction: the right-to-left question reads right to left
    directions = page.locator("#questions-table tbody td .t:not(.id)").evaluate_all(
        "ts => ts.map(t => [t.textContent.slice(0, 5), getComputedStyle(t).direction, getComputedStyle(t).unicodeBidi])")
    assert sorted(directions) == [["which", "ltr", "isolate"], ["\u0645\u0627\u0630\u0627 ", "rtl", "isolate"]]
    # a question type is shown like an id, with its override visible, in the filters, the table and the chart
    assert "lit[U+202E]eral (1)" in page.locator("#type-filter option").all_text_contents()
    page.locator("#chart-by-type .series[data-series='1'] > *").first.hover()
    tip = page.locator(".tip")
    assert tip.text_content() == "a, lit[U+202E]eral: ndcg@2 = 1.000"
    first, after = page.evaluate(X_OF, [".tip", "ndcg", "="])
    assert first < after  # the text after the type runs left to right
    page.click("#questions-table .qbtn[data-question='0']")
    page.select_option("#drill-b", "1")
    first, after = page.evaluate(X_OF, ["#drilldown .claims li", "supp", "rted"])
    assert first < after  # the verdict after an overridden claim reads as written
    assert watched.console_errors() == []


# The demo's page, in this module's Chromium (one launch for every browser test of report.html)
def test_demo_prints_the_page_first_and_it_reads_in_the_browser(demo_run, browser):
    """The demo's report.html in headless Chromium: no console error, no request, and the drill-down of each
    configuration's worst question shows the chunks, grades and evidence that report.json holds.
    With RAG_EVAL_SCREENSHOTS=DIR it saves the overview and a drill-down as PNG files there."""
    code, out, _, folder = demo_run
    assert code == 0
    closing = out[out.index("Open the report:"):]
    assert closing.split()[3] == str(folder.resolve() / "report.html")
    from browser_support import screenshot

    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    names = list(report["configurations"])
    watched = WatchedPage(browser, folder / "report.html")
    page = watched.page
    assert page.locator("#verdict li").all_text_contents() == report["verdict"]
    assert page.locator("#config-table tbody tr").count() == len(names)
    page.set_viewport_size({"width": 1300, "height": 2000})  # verdict, table and charts in one picture
    screenshot(page, "demo_overview.png")
    for ci, name in enumerate(names):
        worst = report["configurations"][name]["worst_queries"][0]
        qi = page.evaluate("id => JSON.parse(document.getElementById('report-data').textContent)"
                           ".questions.findIndex(q => q.id === id)", worst["query_id"])
        page.select_option("#q-type", "all")
        page.fill("#q-search", worst["query_id"])
        page.click(f"#questions-table .qbtn[data-question='{qi}']")
        page.select_option("#drill-a", str(ci))
        left = page.locator("#drilldown .config-column").nth(0)
        cards = left.locator(".chunk")
        assert cards.evaluate_all("cs => cs.slice(0, 3).map(c => [c.dataset.chunkId, Number(c.dataset.grade)])") \
            == [[r["chunk_id"], r["grade"]] for r in worst["retrieved"]], name
        for i, retrieved in enumerate(worst["retrieved"]):
            assert cards.nth(i).locator(".chunk-text").text_content() == retrieved["text"]
            marks = cards.nth(i).locator("mark.evidence").all_text_contents()
            assert bool(marks) == (retrieved["grade"] > 0)
            assert all(any(m.strip() in e for e in worst["evidence"]) for m in marks)
        assert page.locator("#drilldown .q-question").text_content() == worst["query"]
    page.fill("#q-search", "")
    page.click("#questions-table .qbtn[data-question='0']")  # q001: answered, so its answers show too
    page.select_option("#drill-a", label="s256o32/hybrid")
    page.select_option("#drill-b", label="s96o16/bm25")
    screenshot(page.locator("#drilldown"), "demo_drilldown.png")
    assert watched.console_errors() == [] and watched.foreign_requests() == []
