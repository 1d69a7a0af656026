package io.papersearch.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;

/**
 * {@code papersearch_cjk_bigram_filter}: CJKBigramFilter (all CJK scripts,
 * overlapping bigrams, no unigrams). Needs a tokenizer that emits CJK
 * characters one at a time with CJK token types, e.g. {@code standard}.
 */
@NamedComponent("papersearch_cjk_bigram_filter")
public class CjkBigramTokenFilterFactory implements TokenFilterFactory {

    @Override
    public TokenStream create(TokenStream tokenStream) {
        return new CJKBigramFilter(tokenStream);
    }
}
