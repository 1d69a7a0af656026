package io.papersearch.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.papersearch.analysis.Tokens.Tok;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.junit.jupiter.api.Test;

/** Runs each AnalyzerFactory's analyzer on real text and asserts the exact tokens. */
class AnalyzersTest {

    private static final Analyzer CHINESE = new PapersearchChineseAnalyzerFactory().create();
    private static final Analyzer ENGLISH = new PapersearchEnglishAnalyzerFactory().create();
    private static final Analyzer EXACT = new PapersearchEnglishExactAnalyzerFactory().create();
    private static final Analyzer AUTHOR = new PapersearchAuthorAnalyzerFactory().create();
    private static final Analyzer CJK = new PapersearchCjkBigramAnalyzerFactory().create();

    private static Tok t(String term, int start, int end) {
        return new Tok(term, start, end);
    }

    // ---- papersearch_chinese -------------------------------------------------

    @Test
    void chineseSegmentsWordsWithCorrectOffsets() {
        assertEquals(
                List.of(t("大", 0, 1), t("语言", 1, 3), t("模型", 3, 5), t("的", 5, 6), t("推理", 6, 8), t("加速", 8, 10)),
                Tokens.analyze(CHINESE, "大语言模型的推理加速"));
    }

    @Test
    void chineseMixedLatinIsLowercasedAndSplitFromHan() {
        assertEquals(
                List.of(t("llm", 0, 3), t("推理", 3, 5), t("加速", 5, 7)),
                Tokens.analyze(CHINESE, "LLM推理加速"));
    }

    @Test
    void chineseDropsPunctuationKeepsOffsetsAndDoesNotStem() {
        String text = "基于Transformer的大语言模型，推理加速。";
        List<Tok> toks = Tokens.analyze(CHINESE, text);
        assertEquals(
                List.of(t("基于", 0, 2), t("transformer", 2, 13), t("的", 13, 14), t("大", 14, 15),
                        t("语言", 15, 17), t("模型", 17, 19), t("推理", 20, 22), t("加速", 22, 24)),
                toks);
        // Offsets point back at the original characters (what highlighting uses).
        for (Tok tok : toks) {
            assertEquals(tok.term(), text.substring(tok.start(), tok.end()).toLowerCase());
        }
    }

    // ---- papersearch_english -------------------------------------------------

    @Test
    void englishStemsAndStripsPossessives() {
        assertEquals(List.of("model", "learn", "network"), Tokens.terms(ENGLISH, "models learning networks'"));
    }

    @Test
    void englishRemovesStopWordsAndKeepsOffsets() {
        assertEquals(
                List.of(t("network", 4, 12), t("model", 14, 20), t("learn", 25, 33)),
                Tokens.analyze(ENGLISH, "The Networks' models are learning"));
        assertEquals(List.of("transform", "model"), Tokens.terms(ENGLISH, "Transformer's models"));
    }

    // ---- papersearch_english_exact -------------------------------------------

    @Test
    void exactOnlyLowercases() {
        assertEquals(List.of("models", "learning", "networks"), Tokens.terms(EXACT, "models learning networks'"));
        assertEquals(
                List.of("the", "networks", "models", "are", "learning"),
                Tokens.terms(EXACT, "The Networks' models are learning"));
    }

    // ---- papersearch_author --------------------------------------------------

    @Test
    void authorFoldsDiacritics() {
        assertEquals(List.of("soren"), Tokens.terms(AUTHOR, "Søren"));
        assertEquals(Tokens.terms(AUTHOR, "Soren"), Tokens.terms(AUTHOR, "Søren"));
        assertEquals(Tokens.terms(AUTHOR, "Muller"), Tokens.terms(AUTHOR, "Müller"));
        assertEquals(
                List.of(t("soren", 0, 5), t("muller", 6, 12), t("ze'ev", 13, 18)),
                Tokens.analyze(AUTHOR, "Søren Müller Ze'ev"));
        assertEquals("soren kierkegaard", Tokens.normalize(AUTHOR, "Søren Kierkegaard"));
    }

    // ---- papersearch_cjk_bigram ----------------------------------------------

    @Test
    void cjkBigramOverlappingBigrams() {
        assertEquals(
                List.of(t("大语", 0, 2), t("语言", 1, 3), t("言模", 2, 4), t("模型", 3, 5), t("型的", 4, 6),
                        t("的推", 5, 7), t("推理", 6, 8), t("理加", 7, 9), t("加速", 8, 10)),
                Tokens.analyze(CJK, "大语言模型的推理加速"));
    }

    @Test
    void cjkBigramKeepsLatinWhole() {
        assertEquals(
                List.of(t("llm", 0, 3), t("推理", 3, 5), t("理加", 4, 6), t("加速", 5, 7)),
                Tokens.analyze(CJK, "LLM推理加速"));
        // Full-width Latin is folded to ASCII by CJKWidthFilter.
        assertEquals(List.of("llm", "推理"), Tokens.terms(CJK, "ＬＬＭ推理"));
    }
}
