package io.papersearch.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.papersearch.analysis.Tokens.Tok;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.elasticsearch.plugin.NamedComponent;
import org.junit.jupiter.api.Test;

/** Token filter / tokenizer factories, run through real Lucene token streams. */
class ComponentsTest {

    private static List<Tok> run(Tokenizer tokenizer, String text, java.util.function.UnaryOperator<TokenStream> chain)
            throws IOException {
        tokenizer.setReader(new StringReader(text));
        try (TokenStream ts = chain.apply(tokenizer)) {
            return Tokens.collect(ts);
        }
    }

    private static List<String> terms(List<Tok> toks) {
        return toks.stream().map(Tok::term).toList();
    }

    @Test
    void namedComponentNamesAreTheContract() {
        Map<Class<?>, String> expected = Map.of(
                PapersearchChineseAnalyzerFactory.class, "papersearch_chinese",
                PapersearchEnglishAnalyzerFactory.class, "papersearch_english",
                PapersearchEnglishExactAnalyzerFactory.class, "papersearch_english_exact",
                PapersearchAuthorAnalyzerFactory.class, "papersearch_author",
                PapersearchCjkBigramAnalyzerFactory.class, "papersearch_cjk_bigram",
                AsciiFoldingTokenFilterFactory.class, "papersearch_ascii_folding",
                PorterStemTokenFilterFactory.class, "papersearch_porter_stem",
                EnglishPossessiveTokenFilterFactory.class, "papersearch_english_possessive",
                CjkBigramTokenFilterFactory.class, "papersearch_cjk_bigram_filter",
                SmartcnTokenizerFactory.class, "papersearch_smartcn");
        expected.forEach((cls, name) -> {
            NamedComponent nc = cls.getAnnotation(NamedComponent.class);
            assertNotNull(nc, cls + " lacks @NamedComponent");
            assertEquals(name, nc.value());
        });
    }

    @Test
    void asciiFoldingFilterCreateAndNormalize() throws IOException {
        AsciiFoldingTokenFilterFactory f = new AsciiFoldingTokenFilterFactory();
        assertEquals(
                List.of("soren", "muller", "ze'ev"),
                terms(run(new StandardTokenizer(), "Søren Müller Ze'ev", ts -> f.create(new LowerCaseFilter(ts)))));
        // normalize(): whole keyword value, as a keyword normalizer would use it.
        assertEquals(
                List.of("Soren Muller"),
                terms(run(new KeywordTokenizer(), "Søren Müller", f::normalize)));
    }

    @Test
    void porterStemFilter() throws IOException {
        PorterStemTokenFilterFactory f = new PorterStemTokenFilterFactory();
        assertEquals(
                List.of("model", "learn", "network"),
                terms(run(new StandardTokenizer(), "models learning networks", ts -> f.create(new LowerCaseFilter(ts)))));
    }

    @Test
    void englishPossessiveFilter() throws IOException {
        EnglishPossessiveTokenFilterFactory f = new EnglishPossessiveTokenFilterFactory();
        assertEquals(
                List.of("Hinton", "networks"),
                terms(run(new StandardTokenizer(), "Hinton's networks'", f::create)));
    }

    @Test
    void cjkBigramFilter() throws IOException {
        CjkBigramTokenFilterFactory f = new CjkBigramTokenFilterFactory();
        assertEquals(
                List.of(new Tok("LLM", 0, 3), new Tok("推理", 3, 5), new Tok("理加", 4, 6), new Tok("加速", 5, 7)),
                run(new StandardTokenizer(), "LLM推理加速", f::create));
    }

    @Test
    void smartcnTokenizer() throws IOException {
        SmartcnTokenizerFactory f = new SmartcnTokenizerFactory();
        // Raw tokenizer: no stop filter, so punctuation survives as its own token.
        assertEquals(
                List.of(new Tok("大", 0, 1), new Tok("语言", 1, 3), new Tok("模型", 3, 5), new Tok("的", 5, 6),
                        new Tok("推理", 6, 8), new Tok("加速", 8, 10)),
                run(f.create(), "大语言模型的推理加速", ts -> ts));
        // smartcn itself lowercases Latin and maps every punctuation mark to ","
        // (which papersearch_chinese's stop set then removes).
        assertEquals(
                List.of(new Tok("llm", 0, 3), new Tok("推理", 3, 5), new Tok("加速", 5, 7), new Tok(",", 7, 8)),
                run(f.create(), "LLM推理加速。", ts -> ts));
    }
}
