package classify

import (
	"strings"
	"testing"
)

// A plain trigger word counts in a cause only where it is told as an event;
// a thing named by the same word, a fix or a negated step does not.
func TestTriggerCountsGated(t *testing.T) {
	cases := []struct {
		text, kind string
		want       int
	}{
		{"after the deploy of the billing worker, requests began to fail", "deploy", 1},
		{"we upgraded the ingress controller on tuesday", "upgrade", 1},
		{"a planned upgrade of the queue cluster broke consumers", "upgrade", 1},
		{"nobody had reviewed the deployed infrastructure for a year", "deploy", 0},
		{"each replica of every deployment holds a connection", "deploy", 0},
		{"latency improved through node replacement and cluster upgrades", "upgrade", 0},
		{"we did not upgrade the agents", "upgrade", 0},
		{"при обновлении кластера сломалась маршрутизация", "upgrade", 1},
		{"после деплоя воркеры перестали отвечать", "deploy", 1},
		{"мы не обновляли агент уже год", "upgrade", 0},
		{"описание деплоя лежит в репозитории", "deploy", 0},
		{"升级内核后磁盘无法挂载", "upgrade", 1},
		{"在升级集群的过程中网关超时", "upgrade", 1},
		{"因为这里没有升级配置中心", "upgrade", 0},
		{"文档里的升级说明很少", "upgrade", 0},
	}
	for _, tc := range cases {
		if got := triggerCounts(tc.text, true)[tc.kind]; got != tc.want {
			t.Errorf("triggerCounts(%q)[%s] = %d, want %d", tc.text, tc.kind, got, tc.want)
		}
		// ungated (a trigger sentence) every mention counts, once per word
		if got := triggerCounts(tc.text, false)[tc.kind]; got != 1 {
			t.Errorf("ungated triggerCounts(%q)[%s] = %d, want 1", tc.text, tc.kind, got)
		}
	}
}

// Phrases that state a trigger by themselves, and schedules, name the kind.
func TestBestTriggerEventsAndSchedules(t *testing.T) {
	cases := []struct{ text, want string }{
		{"the pool timeout was reduced from 2s to 250ms while the nightly import ran heavy queries", "config-change"},
		{"a fix for the dashboard was pushed and sent api traffic to the wrong backend", "deploy"},
		{"the resolver moved from version 1.6 to 1.8 with the cluster", "upgrade"},
		{"the snapshot job runs every 15 minutes and blocks writes while it forks", "time"},
		{"таймаут уменьшили с 2 секунд до 300 мс, и пул начал отказывать", "config-change"},
		{"резервное копирование запускается каждые 10 минут и блокирует запись", "time"},
		{"кластер обновили до версии 1.29, и ингресс перестал отвечать", "upgrade"},
		{"连接超时被修改为300毫秒后，重试开始堆积", "config-change"},
		{"备份任务每隔10分钟执行一次，执行时写入被阻塞", "time"},
		{"前几天灰度发布了一个客户端版本，里面有全量拉取的逻辑", "deploy"},
		// a rise in load told as an event, and another party's failure
		{"as a result of the increased throughput the replicas fell behind", "traffic-surge"},
		{"writes jumped from 40 to 900 per second within ten minutes", "traffic-surge"},
		{"после рекламной рассылки начался резкий рост запросов к корзине", "traffic-surge"},
		{"活动开始后订单接口的请求量暴涨，数据库连接被占满", "traffic-surge"},
		{"the upload code mishandled an error returned during the github outage", "dependency-event"},
		{"из-за сбоя у провайдера часть запросов терялась", "dependency-event"},
		{"云厂商故障导致对象存储的写入全部超时", "dependency-event"},
		// operator work, planned or by mistake
		{"the day before, we scaled the worker pool from 20 to 60 nodes", "maintenance"},
		{"коллега случайно удалил каталог с конфигурацией на сервере", "maintenance"},
		{"同事误删了存放节点信息的命名空间", "maintenance"},
	}
	for _, tc := range cases {
		if got, _ := bestTrigger([]triggerText{{tc.text, 3, true}}); got != tc.want {
			t.Errorf("bestTrigger(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A sentence that reports a problem easing is a fix's outcome, not a trigger,
// even when it opens with "after the migration".
func TestOutcomeIsRemediationNotTrigger(t *testing.T) {
	for _, s := range []string{
		"After the migration, the periodic stalls of the checkout service were alleviated.",
		"После миграции задержки пришли в норму.",
		"迁移后，接口的周期性卡顿明显缓解。",
	} {
		sc := fieldScores(toLower(s))
		if sc[fRemediation] <= sc[fTrigger] {
			t.Errorf("%q: remediation %.2f, trigger %.2f; want remediation ahead", s, sc[fRemediation], sc[fTrigger])
		}
	}
}

// A cause that names deployments as things and an upgrade as the fix has no
// distinct trigger: latent, not deploy or upgrade.
func TestCauseMentionsAreNotTriggers(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"en", `# Queue workers starved of connections

## Symptoms

The order queue backed up for two hours and the lag alert fired.

## Root cause

Each deployment of the worker service opens forty connections, and the deployed pool size was never revisited, so the database ran out of connections. We recovered through node replacement and database upgrades.

## Resolution

- We reduced the worker count and restarted the pool.
`, "latent"},
		{"ru", `# Воркеры остались без соединений

## Симптомы

Очередь заказов росла два часа, сработал алерт на отставание.

## Корневая причина

Причина в том, что каждый деплоймент сервиса открывал сорок соединений, и база исчерпала лимит подключений. Обновление драйвера потом помогло.

## Исправление

- Уменьшили число воркеров и перезапустили пул.
`, "latent"},
		{"zh", `# 队列消费者连接耗尽

## 现象

订单队列积压了两个小时，延迟告警触发。

## 根因

根本原因是每个消费者实例打开四十个连接，数据库连接数被耗尽。这里并没有更新驱动。

## 解决方法

- 减少消费者数量并重启连接池。
`, "latent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if c.RootCause.Description == "" {
				t.Fatal("no root cause routed")
			}
			if c.Trigger.Kind != tc.want {
				t.Errorf("trigger kind %q, want %q (cause %q, trigger %q)", c.Trigger.Kind, tc.want, c.RootCause.Description, c.Trigger.Description)
			}
		})
	}
}

// Two cues of one field that start on the same word ("revert"/"reverted",
// "исправлен"/"исправление", "解决"/"解决方案") count that word once.
func TestFieldScoresOneCountPerWord(t *testing.T) {
	for _, s := range []string{
		"we reverted the change",
		"исправление выложили вечером",
		"最终的解决方案是扩大连接池",
	} {
		if got := fieldScores(toLower(s))[fRemediation]; got != 2 {
			t.Errorf("%q: remediation %.2f, want 2 (one strong cue)", s, got)
		}
	}
}

// With no sentence routed to the trigger, the first sentence of the story
// that tells the trigger's kind as an event describes it; one inside the
// fix does not.
func TestTriggerDescriptionFromEventSentence(t *testing.T) {
	cases := []struct {
		name, md, want string
	}{
		{"en", "# Postmortem: checkout slowed down\n\nAt 14:05 requests to checkout jumped from 200 to 3000 per second after a newsletter.\n\n## Root cause\n\nThe root cause was that the connection pool was exhausted by the surge in traffic.\n\n## Resolution\n\n- We raised the pool size.\n", "jumped from 200"},
		{"ru", "# Разбор: корзина тормозила\n\nВ 14:05 после рассылки начался резкий рост запросов к корзине.\n\n## Причина\n\nПричиной стал исчерпанный пул соединений при наплыве пользователей.\n\n## Решение\n\n- Увеличили пул.\n", "резкий рост"},
		{"zh", "# 故障复盘：下单接口变慢\n\n14点05分活动开始后，下单接口的请求量暴涨。\n\n## 根本原因\n\n根本原因是请求量暴涨时数据库连接数被打满。\n\n## 解决方案\n\n- 调大连接池。\n", "请求量暴涨"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if c.Trigger.Kind != "traffic-surge" || !strings.Contains(c.Trigger.Description, tc.want) {
				t.Errorf("trigger %q %q, want traffic-surge told by %q", c.Trigger.Kind, c.Trigger.Description, tc.want)
			}
		})
	}
}

// General trigger words added in session 5, one made-up sentence per
// language each (traffic, hardware, dependency, deploy, config).
func TestTriggerGeneralWordsSession5(t *testing.T) {
	cases := []struct{ text, want string }{
		{"a traffic increase from the newsletter filled the queue", "traffic-surge"},
		{"рост нагрузки в понедельник утром забил очередь", "traffic-surge"},
		{"秒杀活动开始，订单服务被打满", "traffic-surge"},
		{"a power failure in one rack took the primary down", "hardware-event"},
		{"отключение питания в стойке уронило основной сервер", "hardware-event"},
		{"机柜断电，主库所在的服务器停止工作", "hardware-event"},
		{"an upstream provider returned errors for every request", "dependency-event"},
		{"сбой стороннего сервиса оплаты оборвал заказы", "dependency-event"},
		{"云服务商故障，对象存储无法写入", "dependency-event"},
		{"the canary sent half of the requests to the broken build", "deploy"},
		{"во время раскатки новой сборки часть подов не поднялась", "deploy"},
		{"a feature flag turned on the new cache for everyone", "config-change"},
	}
	for _, tc := range cases {
		if got, _ := bestTrigger([]triggerText{{tc.text, 3, false}}); got != tc.want {
			t.Errorf("bestTrigger(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A schedule is one fact however many of its words a text uses, and a
// change told beside it (the upgrade a nightly job picked up) outranks it;
// a schedule alone still names "time".
func TestTriggerScheduleCountsOnce(t *testing.T) {
	cases := []struct{ text, want string }{
		{"the errors coincided with our daily scheduled pipeline run, which upgraded the provider to version 5", "upgrade"},
		{"ежедневный регулярный прогон по расписанию обновил драйвер до версии 3", "upgrade"},
		{"每天定时执行的流水线把客户端升级到了新版本", "upgrade"},
		{"the compaction job runs nightly and blocks writes while it runs", "time"},
		{"архивация запускается каждую ночь и блокирует запись", "time"},
		{"每晚的压缩任务会阻塞写入", "time"},
	}
	for _, tc := range cases {
		if got, _ := bestTrigger([]triggerText{{tc.text, 3, true}}); got != tc.want {
			t.Errorf("bestTrigger(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if n := triggerCounts("a daily scheduled nightly run", true)["time"]; n != 1 {
		t.Errorf("three schedule words count %d, want 1", n)
	}
}

// General trigger words of session 6, written from vocabulary.md's kinds
// (one made-up sentence per kind and language).
func TestTriggerGeneralWordsSession6(t *testing.T) {
	cases := []struct{ text, want string }{
		// more load than usual, and what brings it
		{"when the marketing campaign went live, traffic grew fast and the api slowed", "traffic-surge"},
		{"во время распродажи поток запросов к каталогу вырос втрое", "traffic-surge"},
		{"双十一零点，突发流量打满了网关", "traffic-surge"},
		// another party's failure
		{"our cloud provider had an outage in one region and writes failed", "dependency-event"},
		{"у хостера пропала связь с дата-центром, и сайт стал недоступен", "dependency-event"},
		{"运营商故障导致部分地区用户无法访问", "dependency-event"},
		// hardware
		{"a failed drive in the storage array slowed every read", "hardware-event"},
		{"накануне вышел из строя блок питания сервера базы", "hardware-event"},
		{"宿主机宕机后，上面的虚拟机全部停止", "hardware-event"},
		// failover
		{"the replica was promoted and clients kept writing to the old primary", "failover"},
		{"после переключения на резервный канал маршруты не вернулись", "failover"},
		{"主备切换之后，应用仍然连接旧的主库", "failover"},
		// time: expiry told in other forms, clock changes
		{"the signing key's expiration date passed on sunday", "time"},
		{"срок действия токена закончился в полночь", "time"},
		{"夏令时切换那天，定时任务执行了两次", "time"},
	}
	for _, tc := range cases {
		if got, _ := bestTrigger([]triggerText{{tc.text, 3, true}}); got != tc.want {
			t.Errorf("bestTrigger(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// Event phrases of the gated kinds, and neighbours that make a plain word an
// event ("a new release", "the release changed", "новый релиз", "新版本上线").
func TestTriggerEventsSession6(t *testing.T) {
	cases := []struct{ text, kind string }{
		{"a new release of the payments service locked the orders table", "deploy"},
		{"the release changed how refunds are written", "deploy"},
		{"новый релиз сервиса платежей заблокировал таблицу заказов", "deploy"},
		{"新版本上线后订单表被锁住", "deploy"},
		{"an engineer changed the session timeout from one hour to 36 seconds", "config-change"},
		{"вечером выключили старый флаг кэширования", "config-change"},
		{"网关的配置变更让一半请求走到了旧集群", "config-change"},
		{"an upgrade of the message broker reset the consumer offsets", "upgrade"},
		{"перешли на версию 14 базы, и запросы замедлились", "upgrade"},
		{"集群升级了之后，探针开始失败", "upgrade"},
		{"during maintenance on the primary host the operator rebooted the machine", "maintenance"},
		{"в ходе работ на стойке перезагрузили коммутатор", "maintenance"},
		{"运维操作误把生产节点下线了", "maintenance"},
	}
	for _, tc := range cases {
		if got := triggerCounts(tc.text, true)[tc.kind]; got < 1 {
			t.Errorf("triggerCounts(%q)[%s] = 0, want an event", tc.text, tc.kind)
		}
	}
}

// Words that name things or comparisons, not another party's failure, a
// switch-over or a load surge, count for nothing: pods "scheduled" by
// Kubernetes, a status update "published", "в разы больше", 切换分支, a
// service "宕机" (down), "upstream" as a direction.
func TestTriggerGenericWordsAreNoEvent(t *testing.T) {
	for _, text := range []string{
		"the daemon set pods were not scheduled on the full node",
		"we published updates on the status page every 30 minutes",
		"объект на диске в разы больше исходного файла",
		"переключение вкладок в интерфейсе стало медленным",
		"我们切换到另一个分支重新编译",
		"服务宕机了十分钟",
		"上游服务调用下游服务时超时",
	} {
		if got, s := bestTrigger([]triggerText{{text, 1, true}}); s >= storyTriggerMin {
			t.Errorf("bestTrigger(%q) = %q (%.1f), want under the story minimum", text, got, s)
		}
	}
}

// With no trigger in the title or the cause, a trigger the story tells as an
// event twice (the summary and the timeline) names the kind; a story with a
// failure and no told trigger is latent; a post with neither cause nor
// symptoms leaves the kind unknown.
func TestTriggerFromStory(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"en", `# Checkout errors on Tuesday

## Summary

For forty minutes a third of checkout requests failed. A new release of the payments service was the start of it.

## Timeline

- 14:02 Version 4.12 of the payments service was deployed to production.
- 14:05 The error rate on checkout rose above 20%.

## Root cause

The refund code ran an update without an index, which held a lock on the orders table and blocked checkout writes.

## Resolution

- We rolled back at 14:31.
`, "deploy"},
		{"ru", `# Ошибки оформления заказа во вторник

## Кратко

Сорок минут треть запросов к оформлению заказа падала. Всё началось после того, как мы выкатили новый релиз платёжного сервиса.

## Хронология

- 14:02 Новый релиз платёжного сервиса раскатили на прод.
- 14:05 Доля ошибок выросла выше 20%.

## Корневая причина

Причина в том, что код возвратов выполнял обновление без индекса и держал блокировку таблицы заказов.

## Решение

- Откатили релиз в 14:31.
`, "deploy"},
		{"zh", `# 周二下单失败复盘

## 概述

四十分钟内三分之一的下单请求失败。问题在支付服务发布了新版本之后出现。

## 时间线

- 14:02 支付服务新版本上线。
- 14:05 下单错误率超过20%。

## 根本原因

根本原因是退款代码执行了没有索引的更新，长时间锁住订单表，阻塞了下单写入。

## 解决方案

- 14:31 回滚了版本。
`, "deploy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if c.Trigger.Kind != tc.want {
				t.Errorf("trigger kind %q, want %q (cause %q, trigger %q)", c.Trigger.Kind, tc.want, c.RootCause.Description, c.Trigger.Description)
			}
		})
	}
}

// With no cause stated, a story that tells a failure and no trigger is
// latent (not unknown); a trigger its story tells twice still names the kind.
func TestTriggerNoCauseStated(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"en-latent", "# Slow search on Monday\n\n## Symptoms\n\nSearch requests timed out for twenty minutes and users saw empty result pages.\n", "latent"},
		{"ru-latent", "# Медленный поиск в понедельник\n\n## Симптомы\n\nДвадцать минут запросы к поиску падали по таймауту, пользователи видели пустую выдачу.\n", "latent"},
		{"zh-latent", "# 周一搜索变慢\n\n## 故障现象\n\n搜索请求超时了二十分钟，用户看到空白的结果页。\n", "latent"},
		{"en-story", "# Slow search on Monday\n\n## Symptoms\n\nSearch requests timed out for twenty minutes after the vulnerability was published and scanners arrived.\n\nThe advisory was publicly disclosed that morning.\n", "dependency-event"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if c.RootCause.Description != "" {
				t.Skipf("a cause was routed: %q", c.RootCause.Description)
			}
			if c.Trigger.Kind != tc.want {
				t.Errorf("trigger kind %q, want %q", c.Trigger.Kind, tc.want)
			}
		})
	}
}

// Russian event verbs match in every person and number: a stem catches
// "поменял", "поменяла" and "поменяли" alike.
func TestTriggerRussianVerbForms(t *testing.T) {
	cases := []struct{ text, kind string }{
		{"накануне администратор поменял размер кучи в конфиге", "config-change"},
		{"коллега изменила таймаут пула", "config-change"},
		{"вечером инженер выключил старый флаг", "config-change"},
		{"дежурный выкатил сборку в пятницу", "deploy"},
		{"он обновил до версии 8 драйвер базы", "upgrade"},
		{"админ перезагрузил коммутатор в стойке", "maintenance"},
	}
	for _, tc := range cases {
		if got := triggerCounts(tc.text, true)[tc.kind]; got < 1 {
			t.Errorf("triggerCounts(%q)[%s] = 0, want an event", tc.text, tc.kind)
		}
	}
}

// TestCategoryImpliesTrigger: with no trigger told apart from the cause (no
// trigger phrase: a PSU that "died" names the hardware, not an event the
// trigger cues know), a cause whose kind is its own event names the
// trigger: broken hardware is a hardware event (vocabulary.md), not latent.
func TestCategoryImpliesTrigger(t *testing.T) {
	cases := []struct{ name, md, category, want string }{
		{"en", `# Storage node outage

## Symptoms

Writes to the eu-2 volume group returned I/O errors for forty minutes and the latency alert fired.

## Root cause

The PSU of the top-of-rack switch in rack 7 died, and the switch took the storage nodes behind it offline.

## Resolution

- We moved the volumes to rack 8 and replaced the power supply.
`, "hardware", "hardware-event"},
		{"ru", `# Отказ узла хранения

## Симптомы

Запись в группу томов eu-2 сорок минут возвращала ошибки ввода-вывода, сработал алерт на задержку.

## Корневая причина

Сгорел блок питания коммутатора в стойке 7, и коммутатор унёс с собой узлы хранения за ним.

## Исправление

- Перенесли тома в стойку 8 и заменили блок питания.
`, "hardware", "hardware-event"},
		{"zh", `# 存储节点故障

## 现象

eu-2 卷组的写入在四十分钟内返回 I/O 错误，延迟告警触发。

## 根因

7 号机柜交换机的电源坏了，后面的存储节点全部离线。

## 解决方法

- 将卷迁移到 8 号机柜，并更换了电源。
`, "hardware", "hardware-event"},
		{"en deployment", `# Billing errors in every region

## Symptoms

Invoices failed to render for twenty minutes and support tickets piled up.

## Root cause

Our deploy pipeline had no canary stage for the billing service, so a build with a broken template path reached every region at once.

## Resolution

- We pinned the previous build and added the canary stage back.
`, "deployment", "deploy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if c.RootCause.Category != tc.category {
				t.Fatalf("category %q, want %q (cause %q)", c.RootCause.Category, tc.category, c.RootCause.Description)
			}
			if c.Trigger.Kind != tc.want {
				t.Errorf("trigger kind %q, want %q (cause %q, trigger %q)", c.Trigger.Kind, tc.want, c.RootCause.Description, c.Trigger.Description)
			}
		})
	}
}

// TestReflexiveIsNoAct: a Russian verb in its reflexive form tells what the
// system did by itself ("коммутатор отключился"), not what someone did to
// it ("мы отключили кэш"), so it is no configuration change or operator work.
func TestReflexiveIsNoAct(t *testing.T) {
	for _, tc := range []struct {
		text, kind string
		want       bool
	}{
		{"в 10:05 мы отключили кэш на всех узлах", "config-change", true},
		{"в 10:05 коммутатор отключился вместе с узлами", "config-change", false},
		{"в 10:05 база отключилась от реплики", "config-change", false},
		{"ночью мы перезагрузили кластер", "maintenance", true},
		{"ночью узлы сами перезагрузились", "maintenance", false},
	} {
		got := triggerCounts(tc.text, false)[tc.kind] > 0
		if got != tc.want {
			t.Errorf("%q: %s counted %v, want %v", tc.text, tc.kind, got, tc.want)
		}
	}
}

// TestReflexiveIsNoFix: "сервис перезапустился" tells what the service did
// by itself, not a fix someone applied ("мы перезапустили сервис").
func TestReflexiveIsNoFix(t *testing.T) {
	for _, tc := range []struct {
		text string
		fix  bool
	}{
		{"в 10:20 мы перезапустили сервис оплаты", true},
		{"в 10:20 сервис оплаты перезапустился сам", false},
		{"к утру мы восстановили базу из бэкапа", true},
		{"к утру база восстановилась сама, без нас", false},
	} {
		scores, _ := sentenceScores(tc.text)
		if got := scores[fRemediation] > 0; got != tc.fix {
			t.Errorf("%q: remediation score %.1f, want a fix %v", tc.text, scores[fRemediation], tc.fix)
		}
	}
}

// A link shared widely brings its own surge: the "hug of death", in each
// language's idiom.
func TestTriggerHugOfDeath(t *testing.T) {
	for _, text := range []string{
		"a forum thread linked the demo and the hug of death took the origin down by morning",
		"the post made the front page of hacker news and the origin fell over",
		"после публикации статьи случился хабраэффект, и сервер перестал отвечать",
		"活动页面上了热搜，几分钟内网关就被打满了",
	} {
		if got, _ := bestTrigger([]triggerText{{text, 3, true}}); got != "traffic-surge" {
			t.Errorf("bestTrigger(%q) = %q, want traffic-surge", text, got)
		}
	}
}
