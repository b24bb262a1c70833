package classify

import (
	"strings"
	"testing"
)

// The grammar ruStory reads: made-up Russian sentences, none from ../shared.
func TestRuStoryGrammar(t *testing.T) {
	cases := []struct {
		name string
		fn   func([]string) bool
		yes  []string
		no   []string
	}{
		{"failing", ruFailing,
			[]string{"Архив не открывался, tar ругался на конец файла.", "Письма с подтверждением не приходят.",
				"Я так и не смог войти в панель.", "Сервис перестал отвечать на запросы.", "Сайт не работает с утра.",
				"Лента в приложении не загружалась."},
			[]string{"Ошибок в логах не было.", "Перезапуск не помог.", "Кто-то не закрывает соединения при рестарте.",
				"Я не проверял код возврата.", "Я не понял, что происходит."}},
		{"acts", ruActs,
			[]string{"Я переформатировал флешку в ext4.", "Откатили релиз на прошлую версию.", "Потом настроил ротацию логов.",
				"Мы быстро перезапустили поды.", "Затем вручную распаковал свежий архив."},
			[]string{"Письма приходили без проверки.", "Я посмотрел логи сервиса.", "Мы подумали, что это атака.",
				"Я не проверял код возврата.", "Сигнал пропал через минуту."}},
		{"searches", ruSearches,
			[]string{"Я посмотрел историю коммитов, тестов почти не прибавилось.", "Проверил свободное место на диске."},
			[]string{"Я удалил старые образы.", "Сервис не отвечал."}},
		{"guess", ruGuess,
			[]string{"Вот оно, подумали мы, воркеры не закрывают соединения.", "Сначала я грешил на логи.", "Первая гипотеза была простая."},
			[]string{"Оказалось, что индекс удалили.", "Я решил восстановить файл и не смог."}},
		{"promises", func(w []string) bool { return ruPromises(w, false) },
			[]string{"Ещё я добавлю уведомление в телеграм.", "Мы настроим алерт на размер очереди.", "Надо будет описать это в runbook.",
				"В планах — перейти на новую версию.", "Мы договорились проверять DNS-записи по чек-листу."},
			[]string{"Мы используем Redis для сессий.", "Мы видим рост ошибок.", "Причём код возврата я не проверял.",
				"Я добавил проверку размера."}},
		{"absent", ruAbsent,
			[]string{"В логах ошибок не было.", "Задача завершалась с кодом 0, никаких ошибок.", "Сборка прошла без ошибок."},
			[]string{"В логах было много ошибок.", "Ошибка повторялась каждые пять минут."}},
		{"modal", ruModal,
			[]string{"Мониторинг должен присылать алерт.", "Стоит добавить алерт на диск.", "Нужно проверять квоты заранее."},
			[]string{"Алерт стоит на 80% диска.", "Алерт пришёл в 9:52."}},
		{"now", ruNow,
			[]string{"Теперь скрипт проверяет код возврата каждой команды.", "Теперь любые миграции проходят ревью."},
			[]string{"Теперь всё работает.", "Сервис теперь отвечает быстрее."}},
	}
	for _, c := range cases {
		for _, s := range c.yes {
			if !c.fn(ruWords(strings.ToLower(s))) {
				t.Errorf("%s(%q) = false, want true", c.name, s)
			}
		}
		for _, s := range c.no {
			if c.fn(ruWords(strings.ToLower(s))) {
				t.Errorf("%s(%q) = true, want false", c.name, s)
			}
		}
	}
	// a follow-up list's item may open with the plan's verb
	for _, s := range []string{"Добавим алерт на заполненность пула.", "Введём нагрузочное тестирование."} {
		if !ruPromises(ruWords(strings.ToLower(s)), true) {
			t.Errorf("list item %q: no plan", s)
		}
	}
	if ruPromises(ruWords("причём код возврата никто не смотрел."), true) {
		t.Error("a sentence opening with причём is no plan")
	}
}

// A Russian story without field headings, read by its order: symptoms
// before the cause is found, the cause and the rest of its paragraph, the
// steps taken after it, the plans, and the lessons a question leads in to.
func TestRuStoryRoutes(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"hunt", "# Как я чинил бэкапы\n\n" +
			"Утром я хотел открыть вчерашний архив и не смог. Архив не распаковывался: gzip ругался на повреждённые данные. " +
			"Я посмотрел журнал задачи, там никаких ошибок. Сначала я грешил на диск, но он был исправен.\n\n" +
			"Выяснилось, что скрипт копировал архив, пока тот ещё дописывался. Причём код возврата копирования я не проверял.\n\n" +
			"Я перенёс копирование в конец скрипта и заново запустил резервное копирование. Потом проверил, что архив распаковывается, и всё сошлось.\n\n" +
			"Теперь скрипт проверяет код возврата каждой команды. Ещё я добавлю уведомление, если проверка не прошла.\n\n" +
			"Какие выводы я сделал? Бэкап без проверки восстановления ничего не стоит.\n",
			[]routeWant{
				{"Утром я хотел открыть вчерашний архив и не смог.", "symptoms"},
				{"Архив не распаковывался: gzip ругался на повреждённые данные.", "symptoms"},
				{"Я посмотрел журнал задачи, там никаких ошибок.", ""},
				{"Сначала я грешил на диск, но он был исправен.", ""},
				{"Выяснилось, что скрипт копировал архив, пока тот ещё дописывался.", "root_cause"},
				{"Причём код возврата копирования я не проверял.", "root_cause"},
				{"Я перенёс копирование в конец скрипта и заново запустил резервное копирование.", "remediation"},
				{"Потом проверил, что архив распаковывается, и всё сошлось.", ""},
				{"Теперь скрипт проверяет код возврата каждой команды.", "action_items"},
				{"Ещё я добавлю уведомление, если проверка не прошла.", "action_items"},
				{"Какие выводы я сделал?", ""},
				{"Бэкап без проверки восстановления ничего не стоит.", "lessons"},
			}},
		{"no cause told: the first step ends what was seen", "# Ночь без поиска\n\n" +
			"Вечером поиск на сайте перестал отвечать. Страница результатов не загружалась. " +
			"Мы перезапустили поисковый кластер. Потом мы перенесли индекс на новый диск.\n",
			[]routeWant{
				{"Вечером поиск на сайте перестал отвечать.", "symptoms"},
				{"Страница результатов не загружалась.", "symptoms"},
				{"Потом мы перенесли индекс на новый диск.", "remediation"},
			}},
		{"a trial is no fix, an alert in a plan no detection", "# Редис и процессор\n\n" +
			"Процессор редиса держался на 100%. Оказалось, что один клиент слал команды в цикле.\n\n" +
			"Проверили это на реплике: подняли такой же клиент. Сняли нагрузку, и всё вернулось.\n\n" +
			"Мы отключили этот клиент. Ещё я настрою алерт на загрузку процессора. Мониторинг должен присылать алерт раньше.\n",
			[]routeWant{
				{"Сняли нагрузку, и всё вернулось.", ""},
				{"Мы отключили этот клиент.", "remediation"},
				{"Ещё я настрою алерт на загрузку процессора.", "action_items"},
				{"Мониторинг должен присылать алерт раньше.", ""},
			}},
		{"no errors is no symptom", "# Письма не доходят\n\n" +
			"Пользователи жаловались, что письма не приходят. В логах почты ошибок не было. " +
			"Оказалось, что домен попал в спам-лист.\n",
			[]routeWant{
				{"Пользователи жаловались, что письма не приходят.", "symptoms"},
				{"В логах почты ошибок не было.", ""},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := handRoutesOf(t, c.md)
			for _, w := range c.want {
				if f, ok := got[w.sentence]; !ok {
					t.Errorf("sentence %q not found; sentences: %v", w.sentence, got)
				} else if f != w.field {
					t.Errorf("%q went to %q, want %q", w.sentence, f, w.field)
				}
			}
		})
	}
	// only Russian sentences are read so (English has its own story order)
	for s, want := range map[string]bool{"i moved the copy step to the end.": false, "я перенёс шаг copy в конец.": true, "重启了服务。": false} {
		if cyrillic(s) != want {
			t.Errorf("cyrillic(%q) = %v", s, !want)
		}
	}
	for _, h := range []string{"Что сделаем", "Что планируем"} {
		if k, _ := headingKind(h); k != fActionItems {
			t.Errorf("heading %q: %v, want action items", h, k)
		}
	}
}

// What a Russian sentence tells, wherever it stands (ruHeaded): made-up
// sentences, none from ../shared.
func TestRuHeadedGrammar(t *testing.T) {
	explains := []string{"Git хранит содержимое в объектах.", "Это же компрессия — на то она и нужна.",
		"Redis работает корректно, другие сервисы подключаются к нему успешно.", "Загрузка в Chrome работает нормально.",
		"Отчёты открываются без задержек.", "Каталог монтируется из общего тома при старте."}
	faults := []string{"Модуль имеет баг в разборе адреса.", "Образ не содержит pip, обновить модуль невозможно.",
		"Сервис входа отклоняет токены, подписанные новым ключом.", "Пул соединений переполняется за минуту.",
		"Мы выкатили версию без миграции.", "Накануне шрифты перестали копироваться в образ.",
		"Известная несовместимость браузера и HTTP/2.", "Запросы падают с таймаутом."}
	for _, s := range explains {
		if !ruExplains(ruWords(strings.ToLower(s))) {
			t.Errorf("ruExplains(%q) = false, want true (no event, no fault)", s)
		}
	}
	for _, s := range faults {
		if ruExplains(ruWords(strings.ToLower(s))) {
			t.Errorf("ruExplains(%q) = true, want false (an event or a fault)", s)
		}
	}
	for w, want := range map[string]bool{"вернуть": true, "переклонировать": true, "отключиться": true, "часть": false,
		"скорость": false, "сеть": false, "теперь": false, "работает": false} {
		if ruInfinitive(w) != want {
			t.Errorf("ruInfinitive(%q) = %v", w, !want)
		}
	}
	for s, want := range map[string]bool{"Метрика | До исправления | После исправления": true,
		"10:12 | Пользователи не могут войти": false, "Количество повторов: 66 попыток": true, "Сервис перезапущен": false} {
		if ruVerbless(ruWords(strings.ToLower(s))) != want {
			t.Errorf("ruVerbless(%q) = %v", s, !want)
		}
	}
	for w, want := range map[string]bool{"добавлен": true, "восстановлена": true, "исправлено": true, "отключены": true,
		"журнал": false, "сервис": false} {
		if ruDone(w) != want {
			t.Errorf("ruDone(%q) = %v", w, !want)
		}
	}
}

// Under a cause or symptom heading, what only explains or still works is
// no field; a table's header row, a metadata line and a figure under its
// label state nothing; the sentences that tell the failure, the cause and
// the fix keep their headings' fields.
func TestRuHeadedRoutes(t *testing.T) {
	md := "# Сбой выгрузки отчётов\n\n" +
		"Создано: 2026-02-03 Автор: дежурный Версия: 2\n\n" +
		"## Симптомы\n\n" +
		"Отчёты в формате XLSX выгружались пустыми. Выгрузка в CSV работает нормально.\n\n" +
		"## Причина\n\n" +
		"Генератор отчётов хранит шаблоны в отдельном каталоге. После релиза каталог шаблонов не копировался в образ. " +
		"База данных работает корректно.\n\n" +
		"## Решение\n\n" +
		"Вернули копирование шаблонов и перевыпустили образ.\n\n" +
		"| Метрика | До | После |\n|---|---|---|\n| Пустые отчёты | 100% | 0% |\n\n" +
		"- Количество повторных выгрузок: 57 попыток\n\n" +
		"Причина: шаблоны не копировались. Решение: вернули копирование.\n"
	checkHandRoutes(t, "headed report", md, []routeWant{
		{"Создано: 2026-02-03 Автор: дежурный Версия: 2", ""},
		{"Отчёты в формате XLSX выгружались пустыми.", "symptoms"},
		{"Выгрузка в CSV работает нормально.", ""},
		{"Генератор отчётов хранит шаблоны в отдельном каталоге.", ""},
		{"После релиза каталог шаблонов не копировался в образ.", "root_cause"},
		{"База данных работает корректно.", ""},
		{"Вернули копирование шаблонов и перевыпустили образ.", "remediation"},
		{"Метрика | До | После", ""},
		{"Количество повторных выгрузок: 57 попыток", ""},
		{"шаблоны не копировались.", "root_cause"}, // field labels are no metadata
	})
	// English and Chinese sentences are not read so
	for _, s := range []string{"The database works correctly.", "数据库工作正常。"} {
		if cyrillic(s) {
			t.Errorf("cyrillic(%q) = true", s)
		}
	}
}
