package io.papersearch.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;

/**
 * {@code papersearch_ascii_folding}: ASCIIFoldingFilter. Also implements
 * {@link #normalize} so it can be used inside a keyword {@code normalizer}.
 */
@NamedComponent("papersearch_ascii_folding")
public class AsciiFoldingTokenFilterFactory implements TokenFilterFactory {

    @Override
    public TokenStream create(TokenStream tokenStream) {
        return new ASCIIFoldingFilter(tokenStream);
    }

    @Override
    public TokenStream normalize(TokenStream tokenStream) {
        return new ASCIIFoldingFilter(tokenStream);
    }
}
