"""One normaliser: what counts as the same term for every part that compares terms."""

from __future__ import annotations

import re

from ralph_tui.words import (
    CLAUSE_ENDS,
    clause_term_pairs,
    fold,
    folded_words,
    key_terms,
    names_of,
    parts_of,
    query_terms,
    query_words,
    sentences,
    split_sentences,
    stems_of,
    term_pairs,
    term_set,
    terms,
    tokens,
    word_count,
    words_of,
)


def test_folding_takes_unicode_forms_and_case_together() -> None:
    assert fold("ﬁLE") == "file"
    assert fold("Straße") == "strasse"
    assert term_set("ﬁles") == term_set("FILES") == {"file"}


def test_inflections_of_one_word_are_one_term() -> None:
    assert term_set("terminated termination terminate") == {"termin"}
    assert term_set("license licenses") == {"licens"}


def test_an_officer_is_not_an_office() -> None:
    # Snowball gives both "offic"; one term would make every certification of a filing's
    # "principal executive officer" match its cover page's "principal executive offices".
    assert term_set("officer Officers") == {"officer"}
    assert term_set("office offices") == {"offic"}
    assert stems_of(["OFFICERS", "offices"]) == ["officer", "offic"]


def test_a_compound_word_is_its_whole_and_its_parts() -> None:
    assert parts_of("asn1Coding") == ["asn1", "Coding", "asn"]
    assert parts_of("bzip2recover") == ["bzip2", "recover", "bzip"]
    assert parts_of("HTMLParser") == ["HTML", "Parser"]
    assert parts_of("plain") == parts_of("Plain") == parts_of("NASA") == []
    assert terms("asn1Coding") == ["asn1cod", "asn1", "code", "asn"]


def test_a_question_names_whole_words_and_a_text_holds_their_parts() -> None:
    assert query_terms("What does asn1Coding do?") == ["asn1cod"]
    assert "asn1cod" in term_set("'asn1Coding' generates a DER encoding")
    assert {"bzip2", "recov"} <= term_set("You can use bzip2recover on damaged files.")
    assert key_terms("bzip2recover files") == ["bzip2recov", "file"]


def test_a_question_is_about_its_subject_not_its_phrasing() -> None:
    assert query_words("Summarise how bzip2 recovers data from damaged files") == {
        "bzip2": "bzip2",
        "recov": "recovers",
        "data": "data",
        "damag": "damaged",
        "file": "files",
    }


def test_names_are_capitalised_past_a_sentence_start_or_compound() -> None:
    assert names_of("Which Python version does the interpreter require?") == ["python"]
    assert names_of("Summarise how bzip2 recovers data. Then list it.") == ["bzip2"]
    assert names_of("How many goats graze beside the flotation units?") == []


def test_phrases_are_pairs_of_consecutive_terms() -> None:
    assert term_pairs("Planned maintenance is scheduled") == {
        ("plan", "mainten"),
        ("mainten", "schedul"),
    }


def test_japanese_is_han_and_katakana_pairs_without_its_grammar() -> None:
    sentence = "逆洗の前に、運転員は原水の濁度を記録する。"
    assert words_of(sentence) == [
        *["逆洗", "の", "前", "に", "運転", "転員", "は", "原水", "の", "濁度", "を"],
        *["記録", "する"],
    ]
    assert terms(sentence) == ["逆洗", "前", "運転", "転員", "原水", "濁度", "記録"]
    assert query_terms("逆洗はいつ行いますか？") == ["逆洗", "行"]
    assert terms("フィルター") == ["フィ", "ィル", "ルタ", "ター"]
    assert term_set("ﾎﾟﾝﾌﾟ") == term_set("ポンプ") == {"ポン", "ンプ"}


def test_chinese_is_han_pairs_broken_at_question_particles() -> None:
    assert terms("必须进行反冲洗") == ["必须", "须进", "进行", "行反", "反冲", "冲洗"]
    assert query_terms("快滤池什么时候反冲洗？") == [
        *["快滤", "滤池", "时候", "候反", "反冲", "冲洗"]
    ]
    assert ("反冲", "冲洗") in term_pairs("反冲洗之前")
    assert terms("水") == ["水"]


def test_a_text_and_a_question_fold_unspaced_words_alike() -> None:
    text = "反冲洗之前，操作人员应记录原水浊度和余氯。"
    assert query_terms(text) == list(dict.fromkeys(terms(text))) == folded_words(text)
    assert set(query_terms("反冲洗之前记录什么？")) & term_set(text) == {
        *["反冲", "冲洗", "洗之", "之前", "记录"]
    }
    assert stems_of(folded_words("逆洗水量")) == ["逆洗", "洗水", "水量"]


def test_mixed_text_keeps_latin_words_and_pairs_the_rest() -> None:
    assert terms("逆洗Filters は80NTUで") == ["逆洗", "filter", "80ntu", "80", "ntu"]
    assert words_of("ポンプbzip2recover물을") == ["ポン", "ンプ", "bzip2recover", "물을"]
    assert word_count("逆洗を行う filters often") == 7


def test_latin_words_are_unchanged() -> None:
    text = "Filters are backwashed after 48 hours, or sooner on high head-loss (asn1Coding)."
    assert words_of(text) == re.findall(r"\w+", text)
    assert terms(text) == [
        *["filter", "backwash", "48", "hour", "sooner", "high", "head", "loss"],
        *["asn1cod", "asn1", "code", "asn"],
    ]
    assert word_count(text) == len(text.split())


def test_tokens_of_english_are_those_of_the_ascii_tokenizer_they_replace() -> None:
    text = "The loader doesn't cache read-only files; it's NOT 'enabled' by_default (v2.1)."
    old = re.findall(r"[a-z0-9]+(?:['-][a-z0-9]+)*", text.lower().replace("\u2019", "'"))
    assert tokens(text) == old == [
        "the", "loader", "doesn't", "cache", "read-only", "files", "it's", "not", "enabled",
        "by", "default", "v2", "1",
    ]  # fmt: skip
    assert tokens("It\u2019s here") == ["it's", "here"]


def test_tokens_of_other_scripts_are_whole_words_folded() -> None:
    assert tokens("L\u2019été à Zürich: ÉCOLE über-groß") == [
        "l'été", "à", "zürich", "école", "über-gross",
    ]  # fmt: skip
    assert tokens("Η αποθήκη ΔΕΝ είναι ανοιχτή") == ["η", "αποθήκη", "δεν", "είναι", "ανοιχτή"]
    assert tokens("東京の倉庫 is open") == ["東京の倉庫", "is", "open"]
    assert tokens("ﬁle µs") == ["file", "μs"]


def test_one_sentence_splitter_for_every_reader() -> None:
    text = "One ends. Two asks? Three; four\nfive: six"
    assert split_sentences(text) == ["One ends.", "Two asks?", "Three; four\nfive: six"]
    assert split_sentences(text, lines=True) == [
        "One ends.", "Two asks?", "Three; four", "five: six",
    ]  # fmt: skip
    assert sentences(text, also=CLAUSE_ENDS) == [
        "One ends.", "Two asks?", "Three;", "four", "five: six",
    ]  # fmt: skip
    assert split_sentences(text, also=":") == [
        "One ends.",
        "Two asks?",
        "Three; four\nfive:",
        "six",
    ]
    # Chinese and Japanese full stops end a sentence with no space after them.
    assert sentences("逆洗は毎週です。水量は多い！本当？はい") == [
        "逆洗は毎週です。", "水量は多い！", "本当？", "はい",
    ]  # fmt: skip
    assert sentences("东京很大；大阪很小", also=CLAUSE_ENDS) == ["东京很大；", "大阪很小"]


def test_no_term_pair_spans_the_end_of_a_chinese_sentence() -> None:
    pairs = clause_term_pairs("东京很大。大阪很小。")
    assert ("很大", "大阪") not in pairs
    assert ("东京", "京很") in pairs and ("大阪", "阪很") in pairs
    english = "The filters are backwashed weekly. Pumps run daily; valves rarely."
    assert ("weekli", "pump") not in clause_term_pairs(english)
    assert ("pump", "run") in clause_term_pairs(english)
