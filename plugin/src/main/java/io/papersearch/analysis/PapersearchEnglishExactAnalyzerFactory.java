package io.papersearch.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * {@code papersearch_english_exact}: StandardTokenizer → LowerCaseFilter.
 * No stemming, no stop words — for the "exact" subfield.
 */
@NamedComponent("papersearch_english_exact")
public class PapersearchEnglishExactAnalyzerFactory implements AnalyzerFactory {

    @Override
    public Analyzer create() {
        return new ChainAnalyzer(StandardTokenizer::new,
            LowerCaseFilter::new,
            LowerCaseFilter::new);
    }
}
