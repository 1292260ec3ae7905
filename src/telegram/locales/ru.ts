// Russian replies and buttons of the bot, in Fluent syntax (projectfluent.org).
export default `
start =
    Привет, { $name }! Я edgemind — помощник, который помнит.
    Пишите мне как человеку: я держу разговоры по разным задачам отдельно и запоминаю важное.
    /help — что я умею.
start-group = Привет! У этой группы теперь своя память. /help — что я умею.
help =
    Что я умею:
    { $commands }

    Всё остальное, что вы пишете, идёт в разговор текущей задачи.
no-model = Языковая модель не настроена, поэтому ответить я не могу. Сообщение сохранено в задаче «{ $task }».
not-text = Я читаю только текстовые сообщения.
remembered = Запомнил ({ $category }): { $content }
remember-extracted = { $notes ->
    [0] Я прочитал недавний диалог и не нашёл ничего нового.
    [one] Я нашёл в недавнем диалоге { $notes } факт. Он ждёт как непроверенное воспоминание: /verify — проверить.
    [few] Я нашёл в недавнем диалоге { $notes } факта. Они ждут как непроверенные воспоминания: /verify — проверить.
   *[other] Я нашёл в недавнем диалоге { $notes } фактов. Они ждут как непроверенные воспоминания: /verify — проверить.
  }
remember-nothing = В диалоге нет ничего нового, что стоит запомнить.
remember-no-model = Языковая модель не настроена, извлечь факты я не могу. Напишите /remember и сам факт.
remember-later = Сейчас прочитать диалог не получилось (дневной лимит или ошибка модели); сделаю это позже.
forget-usage = Что забыть? /forget <ключ или id>
forgotten = { $count ->
    [one] Забыл: { $what }
    [few] Забыл { $count } записи с ключом { $what }
   *[other] Забыл { $count } записей с ключом { $what }
  }
memory-empty = Сводная память пока пуста.
recall-empty = Воспоминаний пока нет. Напишите /remember <факт>.
search-usage = Что искать? /search <слова>
search-empty = По запросу «{ $q }» ничего не нашлось.
search-results = Найдено по запросу «{ $q }»:
task-default = основная
task-usage =
    /task new <название> [путь к репозиторию] — начать задачу
    /task list — ваши задачи
    /task switch <название> — вернуться к задаче
    /task delete <название> — стереть задачу и её разговор
task-created = Новая задача «{ $task }» теперь активна.
task-existing = Задача «{ $task }» уже была; она снова активна.
task-list = Задачи (▶ — активная):
task-list-empty = Задач пока нет.
task-switched = Переключился на «{ $task }».
task-deleted = Задача «{ $task }» стёрта (сообщений: { $messages }).
task-not-found = Задачи «{ $task }» нет. Список: /task list
done-question = Эта часть задачи закончена? «Да» уберёт временный вывод инструментов из разговора, «Нет» оставит его.
done-yes = Да
done-no = Нет
done-cleared = Убрал временных сообщений: { $count }.
done-kept = Всё оставил.
verify-empty = Проверять нечего: непроверенных воспоминаний нет.
verify-intro = { $count ->
    [one] { $count } непроверенное воспоминание ждёт вашей проверки:
    [few] { $count } непроверенных воспоминания ждут вашей проверки:
   *[other] { $count } непроверенных воспоминаний ждут вашей проверки:
  }
verify-button = Подтвердить
delete-button = Удалить
verified = Подтверждено: { $content }
deleted = Удалено: { $content }
login-link = Ваша одноразовая ссылка в веб-интерфейс (сработает один раз, действует { $minutes } мин.):
    { $url }
login-private = Ради безопасности попросите ссылку для входа в личном чате со мной.
error-generic = Извините, что-то пошло не так. Попробуйте ещё раз чуть позже.
error-not-found = Не нашёл такого.
error-invalid = Не получилось: такой запрос выполнить нельзя.
error-forbidden = Здесь так нельзя.
error-conflict = Это сейчас меняется (например, сворачивается в сводную память); попробуйте через минуту.
error-budget = Дневной лимит модели исчерпан; ответить смогу завтра. Сообщение сохранено.
cmd-start = Начать и познакомиться
cmd-help = Что умеет бот
cmd-remember = Запомнить факт (без текста — из диалога)
cmd-forget = Забыть воспоминание по ключу или id
cmd-memory = Показать сводную память
cmd-recall = Воспоминания, важные сначала
cmd-search = Поиск по памяти
cmd-task = Задачи: new, list, switch, delete
cmd-done = Закончить шаг и убрать вывод инструментов
cmd-verify = Проверить непроверенные воспоминания
cmd-login = Одноразовая ссылка в веб-интерфейс
recall-header = { $count ->
    [one] { $count } воспоминание (проверено: { $verified }, не проверено: { $unverified }), важные сначала:
    [few] { $count } воспоминания (проверено: { $verified }, не проверено: { $unverified }), важные сначала:
   *[other] { $count } воспоминаний (проверено: { $verified }, не проверено: { $unverified }), важные сначала:
  }
written-by-agent = записано агентом
from-dialogue = найдено в диалоге, ждёт консолидации
category-identity = о себе
category-preference = предпочтение
category-fact = факт
category-project = проект
category-skill = навык
category-mistake = ошибка
category-context = контекст
category-note = заметка
priority-low = низкий приоритет
priority-normal = обычный приоритет
priority-high = высокий приоритет
priority-critical = критически важно
`;
