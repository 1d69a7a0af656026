package io.papersearch.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * {@code papersearch_english}: StandardTokenizer → EnglishPossessiveFilter →
 * LowerCaseFilter → StopFilter(English stop words) → PorterStemFilter.
 */
@NamedComponent("papersearch_english")
public class PapersearchEnglishAnalyzerFactory implements AnalyzerFactory {

    @Override
    public Analyzer create() {
        return new ChainAnalyzer(StandardTokenizer::new,
            in -> new PorterStemFilter(new StopFilter(new LowerCaseFilter(new EnglishPossessiveFilter(in)),
                EnglishAnalyzer.ENGLISH_STOP_WORDS_SET)),
            LowerCaseFilter::new);
    }
}
