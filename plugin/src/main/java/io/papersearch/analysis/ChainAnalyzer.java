package io.papersearch.analysis;

import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;

/**
 * An analyzer described as a tokenizer plus a filter chain, and the chain used to
 * normalize query terms (for wildcard/prefix queries). Every analyzer of this
 * plugin is one of these, so each factory states only its recipe.
 */
final class ChainAnalyzer extends Analyzer {
    private final Supplier<Tokenizer> tokenizer;
    private final UnaryOperator<TokenStream> filters;
    private final UnaryOperator<TokenStream> normalizer;

    ChainAnalyzer(Supplier<Tokenizer> tokenizer, UnaryOperator<TokenStream> filters,
                  UnaryOperator<TokenStream> normalizer) {
        this.tokenizer = tokenizer;
        this.filters = filters;
        this.normalizer = normalizer;
    }

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        Tokenizer source = tokenizer.get();
        return new TokenStreamComponents(source, filters.apply(source));
    }

    @Override
    protected TokenStream normalize(String fieldName, TokenStream in) {
        return normalizer.apply(in);
    }
}
