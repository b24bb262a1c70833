package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLabelCountsLongest: the longest cue at a position counts once for
// its label ("configuration" is not also "config", a cue listed for two
// languages counts once), and a word that only starts like a cue counts
// for nothing ("правильно" is not "правило").
func TestLabelCountsLongest(t *testing.T) {
	lc := labelIndex(rootCauseCues)
	tests := []struct {
		text, label string
		want        int
	}{
		{"the launch configuration was wrong", "configuration", 1},
		{"a bug in the parser", "software-defect", 1},
		{"пароль задан правильно", "configuration", 0},
		{"правило фаервола запрещало порт", "configuration", 1},
	}
	for _, tt := range tests {
		if got := labelCounts(lc, tt.text)[tt.label]; got != tt.want {
			t.Errorf("labelCounts(%q)[%s] = %d, want %d", tt.text, tt.label, got, tt.want)
		}
	}
}

// TestCategoryFixtures runs made-up posts of testdata/labels through the
// classifier.
func TestCategoryFixtures(t *testing.T) {
	tests := []struct{ file, want string }{
		// three "правильно" would outvote the one "баг" as configuration
		{"ru_correctly_is_no_rule.md", "software-defect"},
		// Russian cues in their case forms: сети, деплоя, не хватало, железа
		{"ru_network_inflected.md", "network"},
		{"ru_deployment_inflected.md", "deployment"},
		{"ru_capacity_inflected.md", "capacity"},
		{"ru_hardware_inflected.md", "hardware"},
		// "默认情况下" (by default) tells how a thing behaves, not a wrong setting
		{"zh_by_default_is_no_setting.md", "network"},
	}
	for _, tt := range tests {
		raw, err := os.ReadFile(filepath.Join("testdata", "labels", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := classifyMarkdown(t, string(raw)).RootCause.Category; got != tt.want {
			t.Errorf("%s: category = %q, want %q", tt.file, got, tt.want)
		}
	}
}

// TestTagsInPassing: a diagnostic tool the story only runs (curl, ssh) is no
// tag of the incident unless the title, the cause or the front matter
// names it; the server the cause runs through is.
func TestTagsInPassing(t *testing.T) {
	for _, tc := range []struct{ file, want, not string }{
		{"en_curl_in_passing.md", "nginx", "curl"},
		{"zh_curl_in_passing.md", "nginx", "curl"},
		{"en_ssh_in_passing.md", "consul", "ssh"},
	} {
		file := tc.file
		raw, err := os.ReadFile(filepath.Join("testdata", "labels", file))
		if err != nil {
			t.Fatal(err)
		}
		tags := classifyMarkdown(t, string(raw)).Tags
		if !slices.Contains(tags, tc.want) || slices.Contains(tags, tc.not) {
			t.Errorf("%s: tags = %v, want %s and no %s", file, tags, tc.want, tc.not)
		}
	}
}

// TestTriggerInflected: Russian trigger phrases count in their case forms
// too ("во время плановых работ", not only "плановые работы").
func TestTriggerInflected(t *testing.T) {
	for _, text := range []string{"во время плановых работ на маршрутизаторах пропала связь", "сеть упала после плановых работ"} {
		if got := triggerCounts(text, true)["maintenance"]; got != 1 {
			t.Errorf("triggerCounts(%q)[maintenance] = %d, want 1", text, got)
		}
	}
}

// TestDowntimeLabel: a stated downtime is the incident's duration, in each
// language ("Downtime: ~14 minutes", "Время простоя — 14 минут", "停机时间：14 分钟").
func TestDowntimeLabel(t *testing.T) {
	for _, text := range []string{"Downtime of the bot: ~14 minutes (15:49 - 16:03)", "Время простоя — 14 минут", "停机时间：14 分钟"} {
		iso, _, ok := labelledDuration(text, strings.ToLower(text), durationLabels[2].labels)
		if !ok || iso != "PT14M" {
			t.Errorf("labelledDuration(%q) = %q, %v; want PT14M", text, iso, ok)
		}
	}
}

// TestZhUpdateIsNoUpgrade: 更新 alone is any update (of an object, a cache,
// a status), not a version upgrade; a version or a kernel updated is one.
func TestZhUpdateIsNoUpgrade(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"kubelet 收到事件后会更新 pod 对象的状态", 0},
		{"当 pod 状态更新之后，会触发下一次同步", 0},
		{"内核更新后节点反复重启", 1},
		{"集群升级后网关超时", 1},
	} {
		if got := triggerCounts(tc.text, false)["upgrade"]; got != tc.want {
			t.Errorf("triggerCounts(%q)[upgrade] = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// General root-cause words added in session 5, one made-up sentence per
// language each (security, expiry, dependency, hardware, deployment).
func TestRootCauseGeneralWordsSession5(t *testing.T) {
	lc := labelIndex(rootCauseCues)
	for _, tc := range []struct{ text, label string }{
		{"unauthorized access through a leaked credentials file", "security"},
		{"несанкционированный доступ к базе через старую учётку", "security"},
		{"未授权访问导致数据泄露", "security"},
		{"the signing key had expired overnight", "expiry"},
		{"an outage at our provider's saas api", "dependency"},
		{"сбой оборудования в стойке", "hardware"},
		{"服务器故障，网卡故障随后出现", "hardware"},
		{"the canary stage of the deployment pipeline skipped health checks", "deployment"},
		{"при раскатке новой версии порядок шагов нарушился", "deployment"},
		{"外部服务返回错误，服务商没有通知", "dependency"},
	} {
		if labelCounts(lc, tc.text)[tc.label] == 0 {
			t.Errorf("labelCounts(%q) has no %s: %v", tc.text, tc.label, labelCounts(lc, tc.text))
		}
	}
}

// TestPlannedAlertIsNoDetection: an alert the team plans to set up ("Set up
// an alert", "Настроить алерты") tells what it will do, not how it found
// the failure: the method does not become automated-alert from it.
func TestPlannedAlertIsNoDetection(t *testing.T) {
	for _, tc := range []struct{ name, md string }{
		{"en", "# Uploads failed for a day\n\nOn Tuesday every upload of a scanned contract failed with an error 500. " +
			"The upload handler wrote to a temporary folder that had filled up. We cleared the folder and moved it to a larger disk.\n\n" +
			"## Recommendations\n\nThe upload page could be faster.\n\n" +
			"- Set up alerting on monitoring of upload errors\n- Move temporary files to object storage\n"},
		{"ru", "# Загрузка файлов не работала сутки\n\nВо вторник каждая загрузка скана договора падала с ошибкой 500. " +
			"Обработчик загрузки писал во временную папку, которая переполнилась. Мы очистили папку и перенесли её на больший диск.\n\n" +
			"## Рекомендации\n\nСтраница загрузки могла бы работать быстрее.\n\n" +
			"- Настроить алерты мониторинга на ошибки загрузки\n- Перенести временные файлы в объектное хранилище\n"},
	} {
		if got := classifyMarkdown(t, tc.md).Detection.Method; got == "automated-alert" {
			t.Errorf("%s: detection.method = %s, want anything but automated-alert", tc.name, got)
		}
	}
}
