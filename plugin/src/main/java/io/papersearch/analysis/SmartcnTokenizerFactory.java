package io.papersearch.analysis;

import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.cn.smart.HMMChineseTokenizer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenizerFactory;

/** {@code papersearch_smartcn}: smartcn's HMMChineseTokenizer (Chinese word segmentation). */
@NamedComponent("papersearch_smartcn")
public class SmartcnTokenizerFactory implements TokenizerFactory {

    @Override
    public Tokenizer create() {
        return new HMMChineseTokenizer();
    }
}
