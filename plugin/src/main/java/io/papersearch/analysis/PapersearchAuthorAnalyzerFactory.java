package io.papersearch.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * {@code papersearch_author}: StandardTokenizer → LowerCaseFilter →
 * ASCIIFoldingFilter, so "Søren" ≡ "soren" and "Müller" ≡ "muller".
 */
@NamedComponent("papersearch_author")
public class PapersearchAuthorAnalyzerFactory implements AnalyzerFactory {

    @Override
    public Analyzer create() {
        return new ChainAnalyzer(StandardTokenizer::new,
            in -> new ASCIIFoldingFilter(new LowerCaseFilter(in)),
            in -> new ASCIIFoldingFilter(new LowerCaseFilter(in)));
    }
}
