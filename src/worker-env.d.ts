// The Worker's environment, as a global type (src/config.ts reads the settings in it).

/**
 * Every binding, secret and setting the Worker is given (wrangler.toml, .dev.vars, `wrangler
 * secret put`), declared here alone. It is global: no file imports it, so the Durable Object
 * classes it names (as types) are never imported back by the code below them.
 */
interface Env {
  /** The directory (accounts, minds, keys, claims, job runs), and the first shard of minds' data. */
  DB: D1Database;
  /** More shards of minds' data: any [[d1_databases]] binding named SHARD_1, SHARD_2, … */
  [shard: `SHARD_${number}`]: D1Database | undefined;
  /** One session object per session: the single writer of its history. */
  SESSIONS: DurableObjectNamespace<import("./sessions/session-object").SessionObject>;
  /** One object per Telegram chat: handles the chat's updates in order, off the request path. */
  TELEGRAM_CHATS: DurableObjectNamespace<import("./telegram/chat-object").TelegramChatObject>;
  /** One object per rate-limit bucket (key, account or client address): a fixed-window counter. */
  RATE_LIMITS: DurableObjectNamespace<import("./limits/rate-limiter").RateLimiterObject>;
  /** One object per mind: runs the mind's long operations (import, move, erase) in bounded slices. */
  MIND_OPERATIONS: DurableObjectNamespace<import("./portability/operations-object").MindOperationsObject>;
  /** One object per model provider: requests and tokens per minute toward it (src/llm/model-limiter.ts). */
  MODEL_LIMITS?: DurableObjectNamespace<import("./llm/model-limiter").ModelLimiterObject>;
  /** The work queue: cron runs send one message per due unit, the same Worker consumes them. */
  JOBS?: Queue<import("./queue/units").WorkMessage>;
  /** The OAuth provider's storage: registered MCP clients, grants and tokens (hashed). */
  OAUTH_KV: KVNamespace;
  /** One object per OAuth grant: its code exchange, refresh rotations and revocation, one at a time. */
  OAUTH_GRANTS: DurableObjectNamespace<import("./auth/grant-object").OAuthGrantObject>;
  /** The operator's bearer token: admin routes and the Telegram setup (16 characters or more). */
  ADMIN_TOKEN: string;
  /** Signs people's tokens (16 characters or more). */
  JWT_SECRET: string;
  /** The `iss` of people's tokens (default edgemind). */
  JWT_ISSUER?: string;
  /** The `aud` of people's tokens (default edgemind-api). */
  JWT_AUDIENCE?: string;
  /** "production" turns on settings that only make sense behind HTTPS. */
  ENVIRONMENT?: string;
  /** The Worker's public origin, for links the bot hands out (default: the webhook request's origin). */
  PUBLIC_URL?: string;
  /** Which model provider extraction and consolidation use: workers-ai, openai-compatible or none. */
  LLM_PROVIDER?: string;
  /** The OpenAI-compatible endpoint, ending before /chat/completions (e.g. http://127.0.0.1:11434/v1). */
  LLM_BASE_URL?: string;
  /** The OpenAI-compatible endpoint's key, if it asks for one. */
  LLM_API_KEY?: string;
  /** The model's name (with workers-ai, default DEFAULT_WORKERS_AI_MODEL in src/llm/providers.ts). */
  LLM_MODEL?: string;
  /** Model requests per minute for the whole deployment, per provider (default 300; 0: unlimited). */
  LLM_REQUESTS_PER_MINUTE?: string;
  /** Model tokens per minute for the whole deployment, per provider (default 200000; 0: unlimited). */
  LLM_TOKENS_PER_MINUTE?: string;
  /**
   * The Workers AI binding, read only when a provider is workers-ai. It is not declared in
   * wrangler.toml because local runs would then need a Cloudflare account; to use it add
   * `[ai]\nbinding = "AI"` there.
   */
  AI?: Ai;
  /** Recall by meaning: workers-ai, openai-compatible or none (the default: full-text search alone). */
  EMBEDDINGS_PROVIDER?: string;
  /** An OpenAI-compatible endpoint, ending before /embeddings (e.g. http://127.0.0.1:11434/v1). */
  EMBEDDINGS_BASE_URL?: string;
  /** The embedding model's name. */
  EMBEDDINGS_MODEL?: string;
  /** The embeddings endpoint's key, if it asks for one. */
  EMBEDDINGS_API_KEY?: string;
  /** The vector index, one namespace per mind; not declared in wrangler.toml (it needs an account). */
  VECTORIZE?: Vectorize;
  /** The bot's token from @BotFather; the bot is off while it is unset. */
  TELEGRAM_BOT_TOKEN?: string;
  /** Telegram sends it in X-Telegram-Bot-Api-Secret-Token with every webhook call. */
  TELEGRAM_WEBHOOK_SECRET?: string;
  /** The bot's getMe answer as JSON, so handling an update never asks Telegram who the bot is. */
  TELEGRAM_BOT_INFO?: string;
  /** Enough instead of TELEGRAM_BOT_INFO: the bot's username (its id is read from the token). */
  TELEGRAM_BOT_USERNAME?: string;
  /** The Bot API server (default https://api.telegram.org): a local stand-in in development and tests. */
  TELEGRAM_API_ROOT?: string;
  /** The rate limits' window in seconds; each limit below counts per window, 0 turns it off (defaults: src/limits/rate-limits.ts). */
  RATE_LIMIT_WINDOW_SECONDS?: string;
  /** Failed authentications per client address and window. */
  RATE_LIMIT_AUTH_FAILURES_PER_IP?: string;
  /** Failed authentications per key prefix (and per credential) and window. */
  RATE_LIMIT_AUTH_FAILURES_PER_KEY?: string;
  /**
   * Requests per key, OAuth client or account and per client address, each location counting its
   * own (Workers Rate Limiting, [[ratelimits]] in wrangler.toml; src/limits/request-limits.ts).
   */
  WRITES_PER_KEY?: RateLimit;
  WRITES_PER_IP?: RateLimit;
  READS_PER_KEY?: RateLimit;
  READS_PER_IP?: RateLimit;
  /** "off" counts no request in the bindings above (the tests, a benchmark). */
  RATE_LIMIT_REQUESTS?: string;
  /** OAuth client registrations per client address and window. */
  RATE_LIMIT_REGISTRATIONS_PER_IP?: string;
  /** Webhooks' signing secrets are stored encrypted under it (a secret, 32 characters or more); webhooks are off while it is unset. */
  WEBHOOK_ENCRYPTION_KEY?: string;
  /** "1" allows webhooks to loopback receivers (http://127.0.0.1:…), for development; never in a deployment. */
  WEBHOOK_ALLOW_LOOPBACK?: string;
  /** The DNS-over-HTTPS resolver a webhook's host name is checked with (default https://cloudflare-dns.com/dns-query). */
  WEBHOOK_DNS_URL?: string;
}
