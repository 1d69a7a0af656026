package io.papersearch.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.HMMChineseTokenizer;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * {@code papersearch_chinese}: smartcn word segmentation (HMMChineseTokenizer)
 * → lowercase → stop filter with smartcn's default stop set (punctuation).
 * Unlike Lucene's SmartChineseAnalyzer there is no Porter stemming, so Latin
 * words inside Chinese text stay as typed (lowercased).
 */
@NamedComponent("papersearch_chinese")
public class PapersearchChineseAnalyzerFactory implements AnalyzerFactory {

    @Override
    public Analyzer create() {
        return new ChainAnalyzer(HMMChineseTokenizer::new,
            in -> new StopFilter(new LowerCaseFilter(in), SmartChineseAnalyzer.getDefaultStopSet()),
            LowerCaseFilter::new);
    }
}
