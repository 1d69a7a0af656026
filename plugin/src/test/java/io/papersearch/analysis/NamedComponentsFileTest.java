package io.papersearch.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;
import org.elasticsearch.plugin.analysis.TokenizerFactory;
import org.junit.jupiter.api.Test;

/**
 * The zip ships a hand-written named_components.json (see the assembly
 * descriptor for why). Check it lists exactly the @NamedComponent classes,
 * each under the right extensible interface.
 */
class NamedComponentsFileTest {

    private static final List<Class<?>> COMPONENTS = List.of(
            PapersearchChineseAnalyzerFactory.class,
            PapersearchEnglishAnalyzerFactory.class,
            PapersearchEnglishExactAnalyzerFactory.class,
            PapersearchAuthorAnalyzerFactory.class,
            PapersearchCjkBigramAnalyzerFactory.class,
            AsciiFoldingTokenFilterFactory.class,
            PorterStemTokenFilterFactory.class,
            EnglishPossessiveTokenFilterFactory.class,
            CjkBigramTokenFilterFactory.class,
            SmartcnTokenizerFactory.class);

    @Test
    void namedComponentsJsonMatchesAnnotations() throws IOException {
        String json = Files.readString(Path.of("src/main/plugin-metadata/named_components.json"))
                .replaceAll("\\s+", "");
        for (Class<?> cls : COMPONENTS) {
            String name = cls.getAnnotation(NamedComponent.class).value();
            Class<?> api = AnalyzerFactory.class.isAssignableFrom(cls) ? AnalyzerFactory.class
                    : TokenFilterFactory.class.isAssignableFrom(cls) ? TokenFilterFactory.class
                    : TokenizerFactory.class;
            // the entry must sit inside the object for its interface
            int section = json.indexOf("\"" + api.getName() + "\":{");
            assertTrue(section >= 0, "missing section " + api.getName());
            String body = json.substring(section, json.indexOf('}', section));
            assertTrue(body.contains("\"" + name + "\":\"" + cls.getName() + "\""),
                    name + " -> " + cls.getName() + " not under " + api.getName());
        }
        Matcher m = Pattern.compile("\"papersearch_[a-z_]+\":").matcher(json);
        int entries = 0;
        while (m.find()) {
            entries++;
        }
        assertEquals(COMPONENTS.size(), entries, "named_components.json has extra entries");
    }
}
