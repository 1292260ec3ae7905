import type { webhookWordsEn } from "./webhooks-en";

// The web UI's words about webhooks in Russian, key for key as in webhooks-en.ts.

export const webhookWordsRu: Record<keyof typeof webhookWordsEn, string> = {
  webhooks: "Вебхуки",
  webhooksTitle: "Вебхуки",
  webhooksHelp:
    "Вебхук получает события этого хранилища (память создана, изменена, проверена, удалена; заметки; холодная память; сессии; удаление хранилища) подписанными HTTPS-запросами, по порядку (Standard Webhooks: проверяйте их секретом подписи). Неудачная доставка повторяется в течение суток; затем вебхук отключается, пока вы не включите его снова.",
  noWebhooks: "У этого хранилища нет вебхуков.",
  webhookCreate: "Добавить вебхук",
  webhookUrl: "URL (https, публичный адрес)",
  webhookCreated: "Секрет подписи показан только сейчас: передайте его получателю, он проверяет им каждую доставку.",
  webhookTypes: "События",
  webhookOn: "Доставляется",
  webhookOff: "Отключён",
  webhookPending: "Ждут",
  webhookFailing: "Ошибки с {since}; следующая попытка {next}",
  webhookRotating: "Прежний секрет подписывает до {until}",
  webhookEnable: "Включить снова",
  webhookEnabled: "Вебхук включён: доставка продолжится с события, на котором остановилась.",
  webhookDelete: "Удалить",
  webhookDeleted: "Вебхук удалён.",
  webhookDeliveries: "Последние доставки",
  webhookNoDeliveries: "Пока ничего не доставлено.",
  webhookAt: "Когда",
  webhookEvent: "Событие",
  webhookStatus: "Ответ",
  webhookNoAnswer: "нет",
  table_webhooks: "Вебхуки",
  table_events: "События для вебхуков",
  table_event_streams: "Счётчики событий",
  table_webhook_attempts: "Доставки вебхуков",
};
