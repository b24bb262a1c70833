package classify

import (
	"testing"

	"github.com/casebook/casebook"
)

// Security, expiry, human-error and capacity causes named in their own
// words in each language; the post's own front-matter tags count as label
// text; a failed connection attempt is no exhausted connection pool.
func TestCategoryCues(t *testing.T) {
	cases := []struct {
		name, md, want string
	}{
		{"ru security from front matter tags", "---\ntitle: Как встал склад\ntags:\n  - взлом\n  - шифровальщик\n---\n\n# Как встал склад\n\nВ понедельник утром склад перестал принимать заказы.\n\nМы восстановили файлы из резервной копии за два дня.\n", "security"},
		{"ru security words", "# Разбор: остановка бухгалтерии\n\n## Причина\n\nПричиной стал вредоносный файл во вложении письма: злоумышленники получили доступ к серверу и зашифровали диски.\n\n## Решение\n\n- Восстановили данные из копии.\n", "security"},
		{"en security words", "# Postmortem: the build farm went dark\n\n## Root cause\n\nThe root cause was ransomware that a phishing mail brought onto a build agent.\n\n## Resolution\n\n- We rebuilt the agents from clean images.\n", "security"},
		{"zh security words", "# 故障复盘：构建机全部停摆\n\n## 根本原因\n\n根本原因是一封钓鱼邮件带来的勒索病毒加密了构建机的磁盘。\n\n## 解决方案\n\n- 用干净镜像重建构建机。\n", "security"},
		{"zh expiry system time", "# 故障复盘：节点上的容器反复重建\n\n## 根本原因\n\n根本原因是节点的系统时间被调回了一天，组件按时间排序的缓存因此错乱。\n\n## 解决方案\n\n- 校准节点时间后重启组件。\n", "expiry"},
		{"en expiry token", "# Postmortem: the sync job stopped\n\n## Root cause\n\nThe root cause was that the service token expired on Sunday and nobody had set up its renewal.\n\n## Resolution\n\n- We issued a new token.\n", "expiry"},
		{"ru expiry", "# Разбор: отвалилась синхронизация\n\n## Причина\n\nПричина в том, что истёк срок действия ключа доступа, а его продление никто не настроил.\n\n## Решение\n\n- Выпустили новый ключ.\n", "expiry"},
		{"zh human error", "# 故障复盘：集群节点消失\n\n## 根本原因\n\n根本原因是运维同学误删了存放节点信息的命名空间。\n\n## 解决方案\n\n- 重新注册节点。\n", "human-error"},
		{"zh capacity throughput", "# 故障复盘：容器创建超时\n\n## 根本原因\n\n根本原因是数据盘的写入达到了云盘的吞吐上限，成为瓶颈。\n\n## 解决方案\n\n- 更换更高规格的云盘。\n", "capacity"},
		{"ru capacity pool", "# Разбор: API отвечало ошибками\n\n## Причина\n\nПричиной стал исчерпанный пул соединений к базе: запросы ждали свободного соединения.\n\n## Решение\n\n- Увеличили пул.\n", "capacity"},
		{"ru failed connection attempt is no capacity", "# Разбор: поиск не работал\n\n## Причина\n\nСервис не может подключиться к кэшу из-за ошибки в библиотеке клиента: она отправляет неверную команду входа.\n\n## Решение\n\n- Обновили библиотеку.\n", "software-defect"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifyMarkdown(t, tc.md).RootCause.Category; got != tc.want {
				t.Errorf("category = %q, want %q", got, tc.want)
			}
		})
	}
}

// Root-cause words of session 6, written from vocabulary.md's categories:
// one made-up cause sentence per category and language, scored as a cause.
func TestCategoryWordsSession6(t *testing.T) {
	cases := []struct{ text, want string }{
		// software defects told by their kind
		{"an off-by-one in the pager skipped the last shard", "software-defect"},
		{"обработчик попадал в бесконечный цикл на пустом ответе", "software-defect"},
		{"优惠券为空时没有判空，访问了空指针", "software-defect"},
		// capacity: more than it could take
		{"the queue consumers were overwhelmed and could not keep up", "capacity"},
		{"база не выдержала нагрузки и захлебнулась", "capacity"},
		{"数据库承受不住瞬间的回源流量，被压垮了", "capacity"},
		// another party's failure
		{"our provider had a regional outage in the storage service", "dependency"},
		{"у хостера упал дата-центр", "dependency"},
		{"运营商线路中断，合作方的接口也不可用", "dependency"},
		// physical failures
		{"a failed drive and then the power supply of the same server", "hardware"},
		{"перегрев стойки и сгоревший блок питания", "hardware"},
		{"机柜停电后宿主机故障", "hardware"},
		// connectivity
		{"a network partition left both halves with a leader: split brain", "network"},
		{"потеря пакетов между зонами", "network"},
		{"网络分区导致了脑裂", "network"},
		// a manual operation gone wrong
		{"the script ran against the wrong cluster", "human-error"},
		{"команду выполнили не на том сервере", "human-error"},
		{"值班同学操作失误，不小心删掉了数据", "human-error"},
		// a setting the process reads from its environment is configuration
		{"the environment variable pointed at the staging database", "configuration"},
		{"переменная окружения указывала на тестовую базу", "configuration"},
		{"环境变量指向了测试库", "configuration"},
	}
	for _, tc := range cases {
		if got, _ := bestLabel(rootCauseCues, casebook.RootCauseCategories, tc.text, ""); got != tc.want {
			t.Errorf("bestLabel(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A cache entry or a TTL that expires is how a cache works, not an expired
// certificate or licence: a stop phrase covers the expiry cue inside it.
func TestCategoryCacheExpiryIsNoExpiry(t *testing.T) {
	lc := labelIndex(rootCauseCues)
	for _, text := range []string{
		"all cache entries expired at the top of the hour and the database took every read",
		"кэш истёк у всех ключей одновременно",
		"大量缓存同时过期，请求全部打到数据库",
		"缓存键使用同样的过期时间",
	} {
		if n := labelCounts(lc, text)["expiry"]; n != 0 {
			t.Errorf("labelCounts(%q)[expiry] = %d, want 0", text, n)
		}
	}
	// an expired certificate still is one
	if n := labelCounts(lc, "the certificate expired at midnight")["expiry"]; n == 0 {
		t.Errorf("an expired certificate counts no expiry")
	}
}

// A trigger of one kind of cause breaks a tie between causes toward it, and
// adds nothing to a cause no cue named.
func TestCategoryTriggerTieBreak(t *testing.T) {
	texts := []weightedText{{"the image service failed: a vendor's api and a flag were wrong", 1.5}}
	if got, _ := bestLabelWeighted(rootCauseCues, casebook.RootCauseCategories, texts); got != "configuration" {
		t.Fatalf("without the trigger: %q, want configuration (the tie goes by the table's order)", got)
	}
	b := map[string]float64{triggerCategory["dependency-event"]: triggerCategoryBonus}
	if got, _ := bestLabelBonus(rootCauseCues, casebook.RootCauseCategories, texts, b); got != "dependency" {
		t.Errorf("with a dependency-event trigger: %q, want dependency", got)
	}
	b = map[string]float64{triggerCategory["hardware-event"]: triggerCategoryBonus}
	if got, _ := bestLabelBonus(rootCauseCues, casebook.RootCauseCategories, texts, b); got != "configuration" {
		t.Errorf("a hardware trigger for a cause no cue named: %q, want configuration", got)
	}
}

// A cause that names no kind of failure takes the kind the story names, not
// the kind its fixes and plans name: raising a pool's size as a fix says
// nothing of what broke.
func TestCategoryFromStoryNotFixes(t *testing.T) {
	for _, tc := range []struct{ name, md string }{
		{"en", "# Postmortem: stale prices in the shop\n\n## Root cause\n\nThe root cause was that the price job read the cache key of the previous day.\n\n" +
			"## Resolution\n\n- We raised the connection pool limit and the worker quota while we were there.\n- We added capacity to the queue.\n"},
		{"ru", "# Разбор: устаревшие цены\n\n## Причина\n\nПричина в том, что задача цен читала ключ кэша за прошлый день.\n\n" +
			"## Решение\n\n- Заодно увеличили лимит пула соединений и квоту воркеров.\n- Добавили воркеров в очередь.\n"},
		{"zh", "# 故障复盘：商品价格不更新\n\n## 根本原因\n\n根本原因是价格任务读取了前一天的缓存键。\n\n" +
			"## 解决方案\n\n- 顺便调大了连接池上限和工作进程配额。\n- 给队列扩容。\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifyMarkdown(t, tc.md).RootCause.Category; got != "software-defect" {
				t.Errorf("category %q, want software-defect", got)
			}
		})
	}
}
