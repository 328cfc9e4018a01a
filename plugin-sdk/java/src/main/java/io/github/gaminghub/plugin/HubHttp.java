package io.github.gaminghub.plugin;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/** The calls of the plugin protocol: one HttpClient, the bearer token, problem documents read. */
final class HubHttp {
  static final String PREFIX = "/api-platform/ingest";

  /** An answer: its status, body and the Retry-After the hub sent with a 429 or 503. */
  record Answer(int status, String body, Optional<String> retryAfter) {
    boolean ok() {
      return status >= 200 && status < 300;
    }

    /** The token is refused (revoked, expired, unknown): every loop stops. */
    boolean refused() {
      return status == 401 || status == 403;
    }

    JsonObject json() throws HubException {
      try {
        JsonElement e = JsonParser.parseString(body);
        if (!e.isJsonObject()) {
          throw new HubException(status, "invalid_answer", "the hub answered JSON that is not an object");
        }
        return e.getAsJsonObject();
      } catch (JsonParseException e) {
        throw new HubException(status, "invalid_answer", "the hub answered something that is not JSON");
      }
    }

    /** The problem's code, or {@code http_<status>} for an answer that is not a problem document. */
    String code() {
      try {
        JsonElement e = JsonParser.parseString(body);
        if (e.isJsonObject() && e.getAsJsonObject().has("code")) {
          return e.getAsJsonObject().get("code").getAsString();
        }
      } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
        // not a problem document: fall through
      }
      return "http_" + status;
    }

    HubException error() {
      String detail = body.length() > 300 ? body.substring(0, 300) + "..." : body;
      return new HubException(status, code(), "hub answered " + status + ": " + detail);
    }
  }

  private final HttpClient client;
  private final URI base;
  private final AtomicReference<String> token;
  private final String userAgent;

  HubHttp(URI base, String token, String userAgent, Duration connectTimeout, Executor executor) {
    String text = base.toString();
    this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.token = new AtomicReference<>(token);
    this.userAgent = userAgent;
    this.client = HttpClient.newBuilder().connectTimeout(connectTimeout).executor(executor).build();
  }

  void token(String next) {
    token.set(next);
  }

  /**
   * Sends one call and waits for its answer. An interrupt cancels the exchange (the thread's flag
   * stays set), so closing the plugin never waits for a long-poll to end.
   *
   * @throws IOException when the hub could not be reached or did not answer within {@code timeout}
   */
  Answer call(String method, String path, String json, Duration timeout)
      throws IOException, InterruptedException {
    CompletableFuture<HttpResponse<String>> future = client.sendAsync(request(method, path, json, timeout),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    try {
      // the request's own timeout ends the exchange; this one is a safety net for a stuck connection
      HttpResponse<String> r = future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
      return new Answer(r.statusCode(), r.body(), r.headers().firstValue("retry-after"));
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new IOException("no answer from the hub within " + timeout, e);
    } catch (CancellationException e) {
      throw new IOException("the call was cancelled", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io ? io : new IOException(String.valueOf(cause), cause);
    }
  }

  /**
   * The same call without blocking the caller (links and token rotation); a hub that cannot be reached
   * fails it with a {@link HubException} of status 0, as those methods promise.
   */
  CompletableFuture<Answer> callAsync(String method, String path, String json, Duration timeout) {
    return client.sendAsync(request(method, path, json, timeout),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
        .handle((r, failure) -> {
          if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            throw new CompletionException(new HubException("the hub could not be reached: " + cause, cause));
          }
          return new Answer(r.statusCode(), r.body(), r.headers().firstValue("retry-after"));
        });
  }

  private HttpRequest request(String method, String path, String json, Duration timeout) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + PREFIX + path))
        .timeout(timeout)
        .header("authorization", "Bearer " + token.get())
        .header("user-agent", userAgent)
        .header("accept", "application/json");
    if (json == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("content-type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
    }
    return b.build();
  }
}
