package io.github.gaminghub.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.io.File;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java examples compile against this build (all but the one marked "not compiled"). */
class ReadmeTest {
  @TempDir Path out;

  @Test
  void javaBlocksCompile() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
    List<JavaFileObject> sources = new ArrayList<>();
    int skipped = 0;
    while (m.find()) {
      String code = m.group(1);
      if (code.startsWith("// not compiled")) {
        skipped++;
        continue;
      }
      Matcher name = Pattern.compile("(?:public )?class (\\w+)").matcher(code);
      assertTrue(name.find(), "a README block without a class:\n" + code);
      sources.add(new SimpleJavaFileObject(
          java.net.URI.create("string:///" + name.group(1) + ".java"), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return code;
        }
      });
    }
    assertEquals(2, sources.size(), "compiled blocks");
    assertEquals(1, skipped, "the Paper block");
    String classpath = jarOf(HubPlugin.class) + File.pathSeparator + jarOf(JsonObject.class);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter errors = new StringWriter();
    boolean ok = javac.getTask(errors, null, null,
        List.of("-Xlint:all", "-Werror", "-classpath", classpath, "-d", out.toString()), null, sources).call();
    assertTrue(ok, errors.toString());
  }

  private static String jarOf(Class<?> c) throws URISyntaxException {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
