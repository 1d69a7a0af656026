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
        return new Analyzer() {
            @Override
            protected TokenStreamComponents createComponents(String fieldName) {
                StandardTokenizer tokenizer = new StandardTokenizer();
                TokenStream stream = new EnglishPossessiveFilter(tokenizer);
                stream = new LowerCaseFilter(stream);
                stream = new StopFilter(stream, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
                stream = new PorterStemFilter(stream);
                return new TokenStreamComponents(tokenizer, stream);
            }

            @Override
            protected TokenStream normalize(String fieldName, TokenStream in) {
                return new LowerCaseFilter(in);
            }
        };
    }
}
