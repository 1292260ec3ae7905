// English replies and buttons of the bot, in Fluent syntax (projectfluent.org). One word for
// one thing: a memory (a structured record, /recall), a note (a fact found in the dialogue,
// waiting for the consolidation), the consolidated memory (the document, /memory).
export default `
start =
    Hi, { $name }! I am edgemind, an assistant that remembers.
    Write to me as to a person; I keep each task's conversation apart and remember what matters.
    /help shows what I can do.
start-group = Hi! This group has a memory of its own now. /help shows what I can do.
help =
    What I can do:
    { $commands }

    Anything else you write goes to the current task's conversation.
no-model = No language model is configured, so I cannot answer. Your message is saved in the task "{ $task }".
not-text = I only read text messages.
remembered = Remembered ({ $category }): { $content }
remember-extracted = { $notes ->
    [0] I read the recent dialogue and found nothing new to remember.
    [one] I found one fact in the recent dialogue and wrote it down as a note. Within the hour the consolidation folds it into your consolidated memory (/memory); until then /verify shows it, to confirm or delete.
   *[other] I found { $notes } facts in the recent dialogue and wrote them down as notes. Within the hour the consolidation folds them into your consolidated memory (/memory); until then /verify shows them, to confirm or delete.
  }
remember-nothing = There is nothing new in the dialogue to remember.
remember-no-model = No language model is configured, so I cannot extract facts. Use /remember followed by the fact.
remember-later = I could not read the dialogue now (daily limit or model error); I will do it later.
forget-usage = Tell me what to forget: /forget <number> from the last /recall or /search list, or /forget <key or id>
forget-no-item = The last /recall or /search list has no item { $number }. Ask for the list again, then /forget <number>.
forget-gone = Item { $number } of the last list is gone already (forgotten, or a note folded into the consolidated memory). Ask for the list again to see what is there.
forget-hint = /forget <number> forgets an item of this list.
forgotten = { $count ->
    [one] Forgotten: { $what }
   *[other] Forgotten { $count } memories with the key { $what }
  }
memory-empty = The consolidated memory is empty so far.
recall-empty = No memories yet. Use /remember <fact>.
search-usage = Tell me what to search for: /search <words>
search-empty = Nothing found for “{ $q }”.
search-results = Found for “{ $q }”:
search-dialogue = In this task's conversation:
search-dialogue-line = { $role ->
    [user] you
   *[other] me
  }: { $text }
task-default = main
task-usage =
    /task new <name> [repo path] — start a task
    /task list — your tasks
    /task switch <name> — go back to a task
    /task delete <name> — erase a task and its conversation
task-created = New task “{ $task }” is now active.
task-existing = Task “{ $task }” already existed; it is active again.
task-list = Tasks (▶ is active):
task-list-empty = No tasks yet.
task-switched = Switched to “{ $task }”.
task-deleted = Task “{ $task }” is erased ({ $messages } messages).
task-not-found = There is no task “{ $task }”. /task list shows them.
done-question = Done with this part of the task? “Yes” clears the temporary tool output from the conversation; “No” keeps it.
done-yes = Yes
done-no = No
done-cleared = { $count ->
    [0] There was no temporary output left to clear.
    [one] Cleared one temporary message.
   *[other] Cleared { $count } temporary messages.
  }
done-nothing = This task has no temporary tool output, so there is nothing to clear. (Temporary output comes from tools an agent reports through the API.)
done-kept = Kept everything.
verify-empty = Nothing waits for your check: there are no unverified memories or notes.
verify-intro = Waiting for your check: memories agents wrote, { $memories }; notes found in the dialogue, { $notes }.
verify-button = Verify
delete-button = Delete
verified = Verified: { $content }
deleted = Deleted: { $content }
login-link = Your one-time link to the web interface (works once, for { $minutes } minutes):
    { $url }
login-private = For your safety, ask for a login link in a private chat with me.
error-generic = Sorry, something went wrong. Please try again in a moment.
error-not-found = I could not find that.
error-invalid = That did not work: { $message }
error-forbidden = That is not allowed here.
error-conflict = That is being changed right now (folded into the consolidated memory, for example); try again in a minute.
error-budget = Today's model budget is used up; I will be able to answer tomorrow. Your message is saved.
cmd-start = Start and introduce yourself
cmd-help = What the bot can do
cmd-remember = Remember a fact (without text: from the dialogue)
cmd-forget = Forget a memory or a note: its number in a list, a key or an id
cmd-memory = Show the consolidated memory
cmd-recall = List memories, most important first
cmd-search = Search memories, notes and this task's conversation
cmd-task = Tasks: new, list, switch, delete
cmd-done = Finish a step and clear tool output
cmd-verify = Check unverified memories and notes
cmd-login = One-time link to the web interface
recall-header = { $count ->
    [one] One memory ({ $verified } verified, { $unverified } unverified), most important first:
   *[other] { $count } memories ({ $verified } verified, { $unverified } unverified), most important first:
  }
written-by-agent = a memory an agent wrote
from-dialogue = a note found in the dialogue; the hourly consolidation folds it into the consolidated memory
category-identity = identity
category-preference = preference
category-fact = fact
category-project = project
category-skill = skill
category-mistake = mistake
category-context = context
category-note = note
priority-low = low priority
priority-normal = normal priority
priority-high = high priority
priority-critical = critical
`;
