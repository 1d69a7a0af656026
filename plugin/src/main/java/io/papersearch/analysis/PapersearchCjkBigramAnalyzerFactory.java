package io.papersearch.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * {@code papersearch_cjk_bigram}: StandardTokenizer → CJKWidthFilter →
 * LowerCaseFilter → CJKBigramFilter. CJK runs become overlapping bigrams,
 * Latin words stay whole — the high-recall subfield for Chinese text.
 */
@NamedComponent("papersearch_cjk_bigram")
public class PapersearchCjkBigramAnalyzerFactory implements AnalyzerFactory {

    @Override
    public Analyzer create() {
        return new ChainAnalyzer(StandardTokenizer::new,
            in -> new CJKBigramFilter(new LowerCaseFilter(new CJKWidthFilter(in))),
            in -> new LowerCaseFilter(new CJKWidthFilter(in)));
    }
}
