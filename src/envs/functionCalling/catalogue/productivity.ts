// Files, calendar and messaging APIs.
import { partitionPool } from '../../splits';
import { maybe, PEOPLE, phrase, sampleDate, sampleTime } from './pools';
import { listPhrase, permutations, ScenarioBuilder, tool, type CatalogueFunction } from './types';

// Each pool is cut into train / validation / test parts (pools.ts); simulated results use train parts.
export const DIRECTORIES = partitionPool(
  ['/home/user/documents', '/home/user/photos', '/var/log', '/home/user/projects/site', '/tmp/exports', '/home/user/music', '/home/user/downloads', '/srv/backups', '/home/user/videos', '/opt/app/config', '/home/user/desktop', '/data/reports'],
  'catalogue/directory',
);
export const EXTENSIONS = partitionPool(['pdf', 'txt', 'jpg', 'csv', 'log', 'md', 'mp3', 'png', 'json', 'docx', 'xlsx', 'zip'], 'catalogue/extension');
export const FILES = partitionPool(
  ['/home/user/notes.txt', '/etc/hosts', '/home/user/site/README.md', '/var/lib/app/state.json', '/home/user/budget.csv', '/tmp/report.txt', '/home/user/todo.md', '/etc/fstab', '/srv/app/settings.json', '/home/user/letters/draft.txt', '/var/www/access.log', '/home/user/recipes.txt'],
  'catalogue/file',
);
export const EVENT_TITLES = partitionPool(
  ['Team standup', 'Dentist appointment', 'Project review', 'Lunch with Sam', 'Budget planning', 'Yoga class', 'Client call', 'Board meeting', 'Piano lesson', 'Sprint retro', 'Coffee with Dana', 'Car service', 'Parent evening', 'Design critique'],
  'catalogue/event',
);
export const REMINDERS = partitionPool(
  ['call the dentist', 'water the plants', 'submit the expense report', 'pick up the kids', 'take my medication', 'back up the laptop', 'renew the passport', 'feed the cat', 'pay the rent', 'book the car service', 'send the invoice', 'stretch for ten minutes'],
  'catalogue/reminder',
);
export const SUBJECTS = partitionPool(
  ['Quarterly report', 'Meeting tomorrow', 'Invoice 2231', 'Weekend plans', 'Project update', 'Holiday schedule', 'Contract renewal', 'Team offsite', 'Budget approval', 'Welcome aboard'],
  'catalogue/subject',
);
export const BODIES = partitionPool(
  ['The draft is ready for review.', 'Can we move our call to Friday?', 'Please find the numbers attached.', 'Thanks for your help last week!', 'I will be late today.', 'The venue is booked for June.', 'Let me know if the figures look right.', 'Our flight lands at noon.', 'The printer is fixed.', 'See the notes from today.'],
  'catalogue/body',
);
export const TEXTS = partitionPool(
  ['Running ten minutes late', 'Dinner at 8?', 'Call me when you land', 'Happy birthday!', 'The package arrived', 'On my way', 'Keys are under the mat', 'Meeting moved to 3', 'Bring an umbrella', 'Congrats on the new job!'],
  'catalogue/text',
);

const listFiles: CatalogueFunction = {
  domain: 'files',
  tool: tool(
    'list_files',
    'List the files in a directory.',
    {
      directory: { type: 'string', description: 'Absolute directory path.' },
      extension: { type: 'string', description: "Only files with this extension, without the dot, e.g. 'pdf'." },
      recursive: { type: 'boolean', description: 'Include sub-directories.', default: false },
    },
    ['directory'],
  ),
  sample(rng, split) {
    const dir = rng.pick(DIRECTORIES[split]);
    const ext = maybe(rng, () => rng.pick(EXTENSIONS[split]));
    const recursive = maybe(rng, () => true);
    const what = ext === null ? 'files' : `${ext} files`;
    const where = recursive === null ? `in ${dir}` : `in ${dir} and all its sub-folders`;
    const request = phrase(rng, split, ['List the {what} {where}.', 'Show me all {what} {where}.', 'Enumerate the {what} {where}.', 'Which {what} are there {where}?', 'What {what} can you find {where}?'], { what, where });
    return new ScenarioBuilder().required('directory', dir).optional('extension', ext, undefined).optional('recursive', recursive, false).done(request);
  },
  simulate(args, rng) {
    const ext = typeof args.extension === 'string' && args.extension !== '' ? args.extension : rng.pick(EXTENSIONS.train);
    const files = Array.from({ length: rng.int(0, 5) }, () => `${rng.pick(['report', 'photo', 'data', 'notes', 'backup'])}_${rng.int(1, 99)}.${ext}`);
    return { directory: args.directory, files };
  },
};

const readFile: CatalogueFunction = {
  domain: 'files',
  tool: tool(
    'read_file',
    'Read the text content of a file.',
    { path: { type: 'string', description: 'Absolute file path.' }, max_lines: { type: 'integer', description: 'Maximum number of lines to return.', default: 100 } },
    ['path'],
  ),
  sample(rng, split) {
    const path = rng.pick(FILES[split]);
    const lines = maybe(rng, () => rng.pick([5, 10, 20, 50]));
    const request =
      lines === null
        ? phrase(rng, split, ['Show me the contents of {path}.', 'Read the file {path}.', 'Print what is inside {path}.', 'Open {path} and show me what it says.', 'Display the text of {path}.'], { path })
        : phrase(rng, split, ['Show me the first {n} lines of {path}.', 'Read the first {n} lines of the file {path}.', 'Print the top {n} lines of {path}.', 'Open {path} and show only {n} lines.', 'Display {n} lines from the start of {path}.'], { path, n: lines });
    return new ScenarioBuilder().required('path', path).optional('max_lines', lines, 100).done(request);
  },
  simulate(args, rng) {
    const n = Math.min(Number(args.max_lines ?? 100), rng.int(2, 6));
    return { path: args.path, lines: Array.from({ length: n }, (_, i) => `line ${i + 1}: ${rng.pick(['ok', 'TODO', 'done', '42', 'config=true'])}`) };
  },
};

const createCalendarEvent: CatalogueFunction = {
  domain: 'calendar',
  tool: tool(
    'create_calendar_event',
    'Create an event in the calendar.',
    {
      title: { type: 'string', description: 'Event title.' },
      date: { type: 'string', description: 'Event date, YYYY-MM-DD.' },
      start_time: { type: 'string', description: 'Start time, HH:MM (24-hour).' },
      duration_minutes: { type: 'integer', description: 'Length of the event in minutes.', default: 60 },
      attendees: { type: 'array', items: { type: 'string' }, description: 'Email addresses of attendees.', default: [] },
    },
    ['title', 'date', 'start_time'],
  ),
  sample(rng, split) {
    const title = rng.pick(EVENT_TITLES[split]);
    const date = sampleDate(rng, split);
    const time = sampleTime(rng, split);
    const duration = maybe(rng, () => rng.pick([15, 30, 45, 90, 120]));
    const attendees = maybe(rng, () => rng.shuffle(PEOPLE[split]).slice(0, rng.int(1, 2)).map((p) => p.email));
    const extras = [duration === null ? '' : ` for ${duration} minutes`, attendees === null ? '' : ` and invite ${listPhrase(attendees)}`].join('');
    const request = phrase(rng, split, [
      'Schedule "{title}" on {date} at {time}{extras}.',
      'Add an event called "{title}" to my calendar on {date} at {time}{extras}.',
      'Book "{title}" for {date} at {time}{extras}.',
      'Put "{title}" in the calendar for {date}, starting at {time}{extras}.',
      'Create a calendar entry "{title}" on {date} at {time}{extras}.',
    ], { title, date: date.spoken, time: time.spoken, extras });
    return new ScenarioBuilder()
      .required('title', title)
      .required('date', date.iso, date.accepted)
      .required('start_time', time.hhmm, time.accepted)
      .optional('duration_minutes', duration, 60)
      .optional('attendees', attendees, [], attendees === null ? undefined : permutations(attendees))
      .done(request);
  },
  simulate(args, rng) {
    return { event_id: `EVT-${rng.int(1000, 9999)}`, title: args.title, date: args.date, start_time: args.start_time, status: 'created' };
  },
};

const listCalendarEvents: CatalogueFunction = {
  domain: 'calendar',
  tool: tool(
    'list_calendar_events',
    'List the events on a given day.',
    {
      date: { type: 'string', description: 'Day to list, YYYY-MM-DD.' },
      calendar: { type: 'string', enum: ['work', 'personal', 'family'], description: 'Which calendar.', default: 'work' },
    },
    ['date'],
  ),
  sample(rng, split) {
    const date = sampleDate(rng, split);
    const calendar = maybe(rng, () => rng.pick(['personal', 'family', 'work']));
    const which = calendar === null ? '' : ` in my ${calendar} calendar`;
    const request = phrase(rng, split, ['What do I have on {date}{which}?', 'List my events for {date}{which}.', 'Am I busy on {date}{which}?', 'Show the schedule for {date}{which}.', 'Which appointments are booked for {date}{which}?'], { date: date.spoken, which });
    return new ScenarioBuilder().required('date', date.iso, date.accepted).optional('calendar', calendar, 'work').done(request);
  },
  simulate(args, rng) {
    const events = Array.from({ length: rng.int(0, 3) }, () => ({ title: rng.pick(EVENT_TITLES.train), start_time: `${String(rng.int(8, 18)).padStart(2, '0')}:00` }));
    return { date: args.date, calendar: args.calendar ?? 'work', events };
  },
};

const setReminder: CatalogueFunction = {
  domain: 'calendar',
  tool: tool(
    'set_reminder',
    'Set a reminder at a time of day.',
    {
      message: { type: 'string', description: 'What to be reminded of.' },
      time: { type: 'string', description: 'Time of day, HH:MM (24-hour).' },
      repeat: { type: 'string', enum: ['none', 'daily', 'weekly', 'monthly'], description: 'Repetition.', default: 'none' },
    },
    ['message', 'time'],
  ),
  sample(rng, split) {
    const message = rng.pick(REMINDERS[split]);
    const time = sampleTime(rng, split);
    const repeat = maybe(rng, () => rng.pick(['daily', 'weekly', 'monthly']));
    const every = repeat === null ? '' : ` ${repeat === 'daily' ? 'every day' : repeat === 'weekly' ? 'every week' : 'every month'}`;
    const request = phrase(rng, split, ['Remind me at {time}{every} to {msg}.', 'Set a reminder for {time}{every}: {msg}.', 'At {time}{every}, remind me to {msg}.', 'Please create a reminder to {msg} at {time}{every}.', 'Nudge me to {msg} at {time}{every}.'], {
      time: time.spoken,
      every,
      msg: message,
    });
    return new ScenarioBuilder()
      .required('message', message, [message, message[0].toUpperCase() + message.slice(1)])
      .required('time', time.hhmm, time.accepted)
      .optional('repeat', repeat, 'none')
      .done(request);
  },
  simulate(args, rng) {
    return { reminder_id: `REM-${rng.int(1000, 9999)}`, message: args.message, time: args.time, repeat: args.repeat ?? 'none' };
  },
};

const sendEmail: CatalogueFunction = {
  domain: 'messaging',
  tool: tool(
    'send_email',
    'Send an email.',
    {
      to: { type: 'string', description: 'Recipient email address.' },
      subject: { type: 'string', description: 'Subject line.' },
      body: { type: 'string', description: 'Message text.' },
      cc: { type: 'array', items: { type: 'string' }, description: 'Email addresses to copy.', default: [] },
    },
    ['to', 'subject', 'body'],
  ),
  sample(rng, split) {
    const [to, ccPerson] = rng.shuffle(PEOPLE[split]).slice(0, 2);
    const subject = rng.pick(SUBJECTS[split]);
    const body = rng.pick(BODIES[split]);
    const cc = maybe(rng, () => [ccPerson.email]);
    const extras = cc === null ? '' : ` and cc ${cc[0]}`;
    const request = phrase(rng, split, [
      'Email {to} with the subject "{subject}" saying "{body}"{extras}.',
      'Send an email to {to}, subject "{subject}", body "{body}"{extras}.',
      'Mail {to} about "{subject}" with the text "{body}"{extras}.',
      'Please write to {to} with subject "{subject}" and the message "{body}"{extras}.',
      'Compose an email for {to}: subject "{subject}", message "{body}"{extras}.',
    ], { to: to.email, subject, body, extras });
    return new ScenarioBuilder().required('to', to.email).required('subject', subject).required('body', body).optional('cc', cc, []).done(request);
  },
  simulate(args, rng) {
    return { status: 'sent', message_id: `<${rng.int(100000, 999999)}@mail.example>`, to: args.to };
  },
};

const sendTextMessage: CatalogueFunction = {
  domain: 'messaging',
  tool: tool(
    'send_text_message',
    'Send an SMS text message to a phone number.',
    { phone_number: { type: 'string', description: 'Phone number in international format.' }, message: { type: 'string', description: 'Text to send.' } },
    ['phone_number', 'message'],
  ),
  sample(rng, split) {
    const person = rng.pick(PEOPLE[split]);
    const message = rng.pick(TEXTS[split]);
    const request = phrase(rng, split, ['Text {phone} saying "{msg}".', 'Send an SMS to {phone}: "{msg}".', 'Message {phone} by SMS: "{msg}".', 'Please send "{msg}" as a text message to {phone}.', 'Shoot a text to {phone} that says "{msg}".'], {
      phone: person.phone,
      msg: message,
    });
    return new ScenarioBuilder().required('phone_number', person.phone).required('message', message).done(request);
  },
  simulate(args, rng) {
    return { status: 'delivered', to: args.phone_number, segments: 1 + rng.int(0, 1) };
  },
};

export const PRODUCTIVITY_FUNCTIONS: readonly CatalogueFunction[] = [listFiles, readFile, createCalendarEvent, listCalendarEvents, setReminder, sendEmail, sendTextMessage];
