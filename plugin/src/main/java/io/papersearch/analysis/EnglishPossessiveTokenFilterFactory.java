package io.papersearch.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;

/** {@code papersearch_english_possessive}: EnglishPossessiveFilter (strips trailing 's / '). */
@NamedComponent("papersearch_english_possessive")
public class EnglishPossessiveTokenFilterFactory implements TokenFilterFactory {

    @Override
    public TokenStream create(TokenStream tokenStream) {
        return new EnglishPossessiveFilter(tokenStream);
    }
}
