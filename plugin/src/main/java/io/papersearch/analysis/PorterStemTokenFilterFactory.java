package io.papersearch.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;

/** {@code papersearch_porter_stem}: PorterStemFilter (expects lowercased input). */
@NamedComponent("papersearch_porter_stem")
public class PorterStemTokenFilterFactory implements TokenFilterFactory {

    @Override
    public TokenStream create(TokenStream tokenStream) {
        return new PorterStemFilter(tokenStream);
    }
}
