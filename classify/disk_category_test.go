package classify

import (
	"testing"
)

// A full disk is a capacity problem, a failed disk a hardware one, in every
// language: the word "disk" alone decides neither. Too few of something at
// a peak is capacity too, not the fallback for a cause that names no kind.
func TestResourceCategory(t *testing.T) {
	cases := []struct {
		name, md, want string
	}{
		{"ru full", "# Разбор инцидента: закончилось место на диске\n\n## Что случилось\n\nСервис отчётов не отвечал сорок минут, пользователи видели ошибку 500.\n\n## Причина\n\nПричиной стало переполнение диска на сервере базы данных: старые журналы не удалялись, потому что задача очистки была выключена.\n\n## Решение\n\n- Удалили старые журналы.\n- Включили задачу очистки.\n", "capacity"},
		{"ru failed", "# Разбор инцидента: отказ диска\n\n## Что случилось\n\nСервис отчётов не отвечал сорок минут, пользователи видели ошибку 500.\n\n## Причина\n\nНа основном сервере базы данных отказал диск, и массив перешёл в режим только для чтения.\n\n## Решение\n\n- Заменили диск.\n- Перевели нагрузку на реплику.\n", "hardware"},
		{"en full", "# Postmortem: the reports database stopped taking writes\n\n## Impact\n\nReport generation failed for forty minutes and users saw errors.\n\n## Root cause\n\nThe data volume of the primary database filled up because old logs were never rotated, so it ran out of disk space.\n\n## Resolution\n\n- We deleted the old logs.\n- We turned log rotation back on.\n", "capacity"},
		{"zh full", "# 故障复盘：报表数据库无法写入\n\n## 问题描述\n\n报表服务持续四十分钟无法生成报表，用户看到大量报错。\n\n## 根本原因\n\n根本原因是数据库主机的磁盘空间被旧日志写满，清理任务早已停用。\n\n## 解决方案\n\n- 删除旧日志。\n- 重新启用清理任务。\n", "capacity"},
		{"zh failed", "# 故障复盘：报表数据库无法写入\n\n## 问题描述\n\n报表服务持续四十分钟无法生成报表，用户看到大量报错。\n\n## 根本原因\n\n根本原因是数据库主机发生磁盘故障，阵列降级为只读。\n\n## 解决方案\n\n- 更换故障硬盘。\n- 将流量切换到备库。\n", "hardware"},
		{"zh too few", "# 故障复盘：网关请求排队\n\n## 问题描述\n\n晚高峰时网关大量请求超时，成功率跌到八成。\n\n## 根本原因\n\n根本原因是网关实例太少，晚上流量高峰时请求在队列里排队，最后超时。\n\n## 解决方案\n\n- 把网关实例从三个扩到九个。\n", "capacity"},
		{"en too few", "# Postmortem: gateway requests queued\n\n## Impact\n\nAt the evening peak most gateway requests timed out.\n\n## Root cause\n\nThe gateway ran with too few instances, so at peak traffic requests waited in its backlog until they timed out.\n\n## Resolution\n\n- We tripled the gateway instances.\n", "capacity"},
		{"ru too few", "# Разбор: запросы к шлюзу стояли в очереди\n\n## Что случилось\n\nВечером запросы к шлюзу массово завершались по таймауту.\n\n## Причина\n\nЭкземпляров шлюза было слишком мало, и в пиковые часы запросы ждали в очереди, пока не истекал таймаут.\n\n## Решение\n\n- Увеличили число экземпляров шлюза втрое.\n", "capacity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifyMarkdown(t, tc.md).RootCause.Category; got != tc.want {
				t.Errorf("category = %q, want %q", got, tc.want)
			}
		})
	}
}
