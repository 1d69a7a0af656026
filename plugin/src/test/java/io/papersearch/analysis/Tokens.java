package io.papersearch.analysis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.util.BytesRef;

/** Test helper: runs a real Lucene TokenStream and collects what it emits. */
final class Tokens {
    private Tokens() {}

    /** One emitted token: term text and its [start, end) character offsets in the input. */
    record Tok(String term, int start, int end) {
        @Override
        public String toString() {
            return term + "[" + start + "," + end + "]";
        }
    }

    static List<Tok> analyze(Analyzer analyzer, String text) {
        try (TokenStream ts = analyzer.tokenStream("f", text)) {
            return collect(ts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Tok> collect(TokenStream ts) throws IOException {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        OffsetAttribute off = ts.addAttribute(OffsetAttribute.class);
        List<Tok> out = new ArrayList<>();
        ts.reset();
        while (ts.incrementToken()) {
            out.add(new Tok(term.toString(), off.startOffset(), off.endOffset()));
        }
        ts.end();
        return out;
    }

    static List<String> terms(Analyzer analyzer, String text) {
        return analyze(analyzer, text).stream().map(Tok::term).toList();
    }

    static String normalize(Analyzer analyzer, String text) {
        BytesRef b = analyzer.normalize("f", text);
        return b.utf8ToString();
    }
}
